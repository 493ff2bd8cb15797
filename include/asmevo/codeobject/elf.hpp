// Reads AMDGPU ELF64 code objects (HSA, code object v4-v6): header and target id, sections, symbols, notes,
// program headers and relocations, with every read from the file bounds-checked.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "asmevo/ir/target.hpp"
#include "asmevo/support/diag.hpp"
#include "asmevo/support/file.hpp"

namespace asmevo::codeobject {

/// ELF constants asmevo reads. Generic ones: System V gABI ("System V Application Binary Interface", chapter 4,
/// as spelled in llvm/BinaryFormat/ELF.h); AMDGPU ones: llvm/BinaryFormat/ELF.h of LLVM 22 and AMDGPUUsage.rst,
/// "ELF Header" and "AMDGPU ELF Header e_flags" tables.
namespace elf {
inline constexpr std::size_t ehdr_size = 64;  ///< sizeof(Elf64_Ehdr)
inline constexpr std::size_t shdr_size = 64;  ///< sizeof(Elf64_Shdr)
inline constexpr std::size_t phdr_size = 56;  ///< sizeof(Elf64_Phdr)
inline constexpr std::size_t sym_size = 24;   ///< sizeof(Elf64_Sym)
inline constexpr std::size_t rel_size = 16;   ///< sizeof(Elf64_Rel)
inline constexpr std::size_t rela_size = 24;  ///< sizeof(Elf64_Rela)

inline constexpr std::uint8_t elfclass32 = 1, elfclass64 = 2;
inline constexpr std::uint8_t elfdata2lsb = 1, elfdata2msb = 2;
inline constexpr std::uint8_t ev_current = 1;

inline constexpr std::uint16_t et_none = 0, et_rel = 1, et_exec = 2, et_dyn = 3, et_core = 4;
inline constexpr std::uint16_t em_amdgpu = 224;

inline constexpr std::uint8_t elfosabi_amdgpu_hsa = 64;     // ELF.h: ELFOSABI_AMDGPU_HSA
inline constexpr std::uint8_t elfosabi_amdgpu_pal = 65;     // ELF.h: ELFOSABI_AMDGPU_PAL
inline constexpr std::uint8_t elfosabi_amdgpu_mesa3d = 66;  // ELF.h: ELFOSABI_AMDGPU_MESA3D
// ELF.h: ELFABIVERSION_AMDGPU_HSA_V2..V6 (e_ident[EI_ABIVERSION]).
inline constexpr std::uint8_t abiversion_hsa_v2 = 0, abiversion_hsa_v3 = 1, abiversion_hsa_v4 = 2,
                              abiversion_hsa_v5 = 3, abiversion_hsa_v6 = 4;

// Section types (gABI; GNU and LLVM extensions as named in ELF.h).
inline constexpr std::uint32_t sht_null = 0, sht_progbits = 1, sht_symtab = 2, sht_strtab = 3, sht_rela = 4,
                               sht_hash = 5, sht_dynamic = 6, sht_note = 7, sht_nobits = 8, sht_rel = 9,
                               sht_shlib = 10, sht_dynsym = 11, sht_init_array = 14, sht_fini_array = 15,
                               sht_preinit_array = 16, sht_group = 17, sht_symtab_shndx = 18,
                               sht_relr = 19, sht_gnu_hash = 0x6ffffff6, sht_gnu_verdef = 0x6ffffffd,
                               sht_gnu_verneed = 0x6ffffffe, sht_gnu_versym = 0x6fffffff,
                               sht_llvm_addrsig = 0x6fff4c03;
// Section flags.
inline constexpr std::uint64_t shf_write = 0x1, shf_alloc = 0x2, shf_execinstr = 0x4, shf_merge = 0x10,
                               shf_strings = 0x20, shf_info_link = 0x40, shf_link_order = 0x80,
                               shf_os_nonconforming = 0x100, shf_group = 0x200, shf_tls = 0x400,
                               shf_compressed = 0x800, shf_exclude = 0x80000000;
// Special section indexes.
inline constexpr std::uint32_t shn_undef = 0, shn_loreserve = 0xff00, shn_abs = 0xfff1, shn_common = 0xfff2,
                               shn_xindex = 0xffff;
inline constexpr std::uint32_t shn_amdgpu_lds = 0xff00;  // ELF.h: SHN_AMDGPU_LDS
inline constexpr std::uint16_t pn_xnum = 0xffff;          // e_phnum escape: the count is in section 0's sh_info

// Segment types and flags.
inline constexpr std::uint32_t pt_null = 0, pt_load = 1, pt_dynamic = 2, pt_interp = 3, pt_note = 4, pt_shlib = 5,
                               pt_phdr = 6, pt_tls = 7, pt_gnu_eh_frame = 0x6474e550, pt_gnu_stack = 0x6474e551,
                               pt_gnu_relro = 0x6474e552, pt_gnu_property = 0x6474e553;
inline constexpr std::uint32_t pf_x = 1, pf_w = 2, pf_r = 4;

// Symbol types, bindings, visibilities.
inline constexpr std::uint8_t stt_notype = 0, stt_object = 1, stt_func = 2, stt_section = 3, stt_file = 4,
                              stt_common = 5, stt_tls = 6, stt_gnu_ifunc = 10;
inline constexpr std::uint8_t stt_amdgpu_hsa_kernel = 10;  // ELF.h: STT_AMDGPU_HSA_KERNEL (same value as IFUNC)
inline constexpr std::uint8_t stb_local = 0, stb_global = 1, stb_weak = 2, stb_gnu_unique = 10;
inline constexpr std::uint8_t stv_default = 0, stv_internal = 1, stv_hidden = 2, stv_protected = 3;

// AMDGPU e_flags (ELF.h, "AMDGPU specific e_flags"; AMDGPUUsage "AMDGPU ELF Header e_flags for Code Object V4
// and After").
inline constexpr std::uint32_t ef_amdgpu_mach = 0x0ff;
inline constexpr std::uint32_t ef_amdgpu_feature_xnack_v4 = 0x300;  // mask; values below
inline constexpr std::uint32_t ef_amdgpu_feature_xnack_unsupported_v4 = 0x000, ef_amdgpu_feature_xnack_any_v4 = 0x100,
                               ef_amdgpu_feature_xnack_off_v4 = 0x200, ef_amdgpu_feature_xnack_on_v4 = 0x300;
inline constexpr std::uint32_t ef_amdgpu_feature_sramecc_v4 = 0xc00;  // mask; values below
inline constexpr std::uint32_t ef_amdgpu_feature_sramecc_unsupported_v4 = 0x000,
                               ef_amdgpu_feature_sramecc_any_v4 = 0x400, ef_amdgpu_feature_sramecc_off_v4 = 0x800,
                               ef_amdgpu_feature_sramecc_on_v4 = 0xc00;
inline constexpr std::uint32_t ef_amdgpu_generic_version = 0xff000000;  // code object v6 and after
inline constexpr unsigned ef_amdgpu_generic_version_offset = 24;

// Notes (ELF.h: "AMDGPU vendor specific notes. (Code Object V3)").
inline constexpr std::uint32_t nt_amdgpu_metadata = 32;
}  // namespace elf

/// One of the code object's V4 target features (xnack, sramecc), as the e_flags record it.
enum class FeatureSetting : std::uint8_t {
  unsupported,  ///< the processor does not have the feature
  any,          ///< the code runs with the feature either on or off
  off,          ///< the code requires the feature off ("-" in a target id)
  on,           ///< the code requires the feature on ("+" in a target id)
};

[[nodiscard]] constexpr std::string_view to_string(FeatureSetting f) noexcept {
  switch (f) {
    case FeatureSetting::unsupported: return "unsupported";
    case FeatureSetting::any: return "any";
    case FeatureSetting::off: return "off";
    case FeatureSetting::on: return "on";
  }
  return "?";
}

namespace detail {

struct MachName {
  std::uint32_t mach;
  std::string_view name;
};

// EF_AMDGPU_MACH_AMDGCN_* values and LLVM's processor names: llvm/BinaryFormat/ELF.h (LLVM 22) and AMDGPUUsage
// "AMDGPU ELF Header Enumeration Values". gfx940 (0x040) and gfx941 (0x04b) are from LLVM 17-19's ELF.h; LLVM 22
// lists those values as reserved but old code objects still carry them.
inline constexpr MachName amdgcn_machs[] = {
    {0x020, "gfx600"},  {0x021, "gfx601"},  {0x022, "gfx700"},  {0x023, "gfx701"},  {0x024, "gfx702"},
    {0x025, "gfx703"},  {0x026, "gfx704"},  {0x028, "gfx801"},  {0x029, "gfx802"},  {0x02a, "gfx803"},
    {0x02b, "gfx810"},  {0x02c, "gfx900"},  {0x02d, "gfx902"},  {0x02e, "gfx904"},  {0x02f, "gfx906"},
    {0x030, "gfx908"},  {0x031, "gfx909"},  {0x032, "gfx90c"},  {0x033, "gfx1010"}, {0x034, "gfx1011"},
    {0x035, "gfx1012"}, {0x036, "gfx1030"}, {0x037, "gfx1031"}, {0x038, "gfx1032"}, {0x039, "gfx1033"},
    {0x03a, "gfx602"},  {0x03b, "gfx705"},  {0x03c, "gfx805"},  {0x03d, "gfx1035"}, {0x03e, "gfx1034"},
    {0x03f, "gfx90a"},  {0x040, "gfx940"},  {0x041, "gfx1100"}, {0x042, "gfx1013"}, {0x043, "gfx1150"},
    {0x044, "gfx1103"}, {0x045, "gfx1036"}, {0x046, "gfx1101"}, {0x047, "gfx1102"}, {0x048, "gfx1200"},
    {0x049, "gfx1250"}, {0x04a, "gfx1151"}, {0x04b, "gfx941"},  {0x04c, "gfx942"},  {0x04e, "gfx1201"},
    {0x04f, "gfx950"},  {0x051, "gfx9-generic"}, {0x052, "gfx10-1-generic"}, {0x053, "gfx10-3-generic"},
    {0x054, "gfx11-generic"}, {0x055, "gfx1152"}, {0x058, "gfx1153"}, {0x059, "gfx12-generic"},
    {0x05a, "gfx1251"}, {0x05f, "gfx9-4-generic"},
};

inline std::string to_hex(std::uint64_t v) {
  constexpr char digits[] = "0123456789abcdef";
  std::string s;
  do {
    s.insert(s.begin(), digits[v & 15]);
    v >>= 4;
  } while (v);
  return "0x" + s;
}

/// True when [off, off + size) lies within a buffer of `total` bytes; never overflows.
[[nodiscard]] constexpr bool in_bounds(std::uint64_t off, std::uint64_t size, std::uint64_t total) noexcept {
  return off <= total && size <= total - off;
}

/// a * b, or nullopt on overflow.
[[nodiscard]] constexpr std::optional<std::uint64_t> checked_mul(std::uint64_t a, std::uint64_t b) noexcept {
  if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a) return std::nullopt;
  return a * b;
}

/// `v` rounded up to a multiple of `align` (a power of two), or nullopt on overflow.
[[nodiscard]] constexpr std::optional<std::uint64_t> align_up(std::uint64_t v, std::uint64_t align) noexcept {
  if (v > std::numeric_limits<std::uint64_t>::max() - (align - 1)) return std::nullopt;
  return (v + align - 1) & ~(align - 1);
}

/// Little-endian load of an unsigned integer; the caller has checked the bounds.
template <class T>
[[nodiscard]] inline T load_le(std::span<const std::uint8_t> b, std::uint64_t off) noexcept {
  T v = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) v |= static_cast<T>(static_cast<T>(b[off + i]) << (8 * i));
  return v;
}

}  // namespace detail

/// The target an object was built for, decoded from e_flags (AMDGPUUsage "AMDGPU ELF Header e_flags for Code
/// Object V4 and After").
struct TargetId {
  std::uint32_t mach = 0;                           ///< EF_AMDGPU_MACH value
  std::string processor;                            ///< LLVM processor name ("gfx942"), or "unknown(0x..)"
  FeatureSetting xnack = FeatureSetting::unsupported;
  FeatureSetting sramecc = FeatureSetting::unsupported;
  std::uint8_t generic_version = 0;                 ///< EF_AMDGPU_GENERIC_VERSION (v6 generic targets); 0 = none

  /// The asmevo target, for gfx90a, gfx942 and gfx950 objects only (nullopt for every other processor).
  [[nodiscard]] std::optional<Target> target() const {
    if (processor == "gfx90a") return Target::gfx90a;
    if (processor == "gfx942") return Target::gfx942;
    if (processor == "gfx950") return Target::gfx950;
    return std::nullopt;
  }

  /// LLVM's target id spelling, "gfx942:sramecc+:xnack-": sramecc before xnack, a feature only when it is on or
  /// off (AMDGPUUsage "Target ID"; LLVM AMDGPU::IsaInfo::AMDGPUTargetID::toString). Usable as
  /// `.amdgcn_target "amdgcn-amd-amdhsa--<str()>"`.
  [[nodiscard]] std::string str() const {
    std::string s = processor;
    auto add = [&](std::string_view name, FeatureSetting f) {
      if (f == FeatureSetting::on) s += ":" + std::string(name) + "+";
      if (f == FeatureSetting::off) s += ":" + std::string(name) + "-";
    };
    add("sramecc", sramecc);
    add("xnack", xnack);
    return s;
  }
};

/// LLVM's processor name for an EF_AMDGPU_MACH value, or "unknown(0x..)".
[[nodiscard]] inline std::string processor_name(std::uint32_t mach) {
  for (const auto& m : detail::amdgcn_machs)
    if (m.mach == mach) return std::string(m.name);
  return "unknown(" + detail::to_hex(mach) + ")";
}

/// Decodes e_flags of a code object v4+ object into a TargetId.
[[nodiscard]] inline TargetId decode_flags(std::uint32_t e_flags) {
  auto setting = [](std::uint32_t bits, std::uint32_t any, std::uint32_t off, std::uint32_t on) {
    if (bits == any) return FeatureSetting::any;
    if (bits == off) return FeatureSetting::off;
    if (bits == on) return FeatureSetting::on;
    return FeatureSetting::unsupported;
  };
  TargetId t;
  t.mach = e_flags & elf::ef_amdgpu_mach;
  t.processor = processor_name(t.mach);
  t.xnack = setting(e_flags & elf::ef_amdgpu_feature_xnack_v4, elf::ef_amdgpu_feature_xnack_any_v4,
                    elf::ef_amdgpu_feature_xnack_off_v4, elf::ef_amdgpu_feature_xnack_on_v4);
  t.sramecc = setting(e_flags & elf::ef_amdgpu_feature_sramecc_v4, elf::ef_amdgpu_feature_sramecc_any_v4,
                      elf::ef_amdgpu_feature_sramecc_off_v4, elf::ef_amdgpu_feature_sramecc_on_v4);
  t.generic_version =
      static_cast<std::uint8_t>((e_flags & elf::ef_amdgpu_generic_version) >> elf::ef_amdgpu_generic_version_offset);
  return t;
}

/// e_flags in words, for `inspect`: "0x54c: gfx942, xnack any, sramecc any" (plus ", generic version N").
[[nodiscard]] inline std::string describe_flags(std::uint32_t e_flags) {
  const TargetId t = decode_flags(e_flags);
  std::string s = detail::to_hex(e_flags) + ": " + t.processor + ", xnack " + std::string(to_string(t.xnack)) +
                  ", sramecc " + std::string(to_string(t.sramecc));
  if (t.generic_version) s += ", generic version " + std::to_string(t.generic_version);
  return s;
}

/// The ELF header fields asmevo keeps (all as read; e_phnum/e_shnum/e_shstrndx after the extended-numbering
/// escapes are resolved).
struct ElfHeader {
  std::uint8_t os_abi = 0;       ///< e_ident[EI_OSABI]
  std::uint8_t abi_version = 0;  ///< e_ident[EI_ABIVERSION]
  std::uint16_t type = 0;        ///< e_type
  std::uint16_t machine = 0;     ///< e_machine
  std::uint32_t version = 0;     ///< e_version
  std::uint64_t entry = 0;       ///< e_entry
  std::uint64_t phoff = 0;       ///< e_phoff
  std::uint64_t shoff = 0;       ///< e_shoff
  std::uint32_t flags = 0;       ///< e_flags
  std::uint16_t ehsize = 0;      ///< e_ehsize
  std::uint16_t phentsize = 0;   ///< e_phentsize
  std::uint32_t phnum = 0;       ///< program header count
  std::uint16_t shentsize = 0;   ///< e_shentsize
  std::uint32_t shnum = 0;       ///< section header count
  std::uint32_t shstrndx = 0;    ///< section name string table index
};

/// One section header, with its name resolved.
struct Section {
  std::uint32_t index = 0;
  std::string name;
  std::uint32_t name_offset = 0;  ///< sh_name
  std::uint32_t type = 0;
  std::uint64_t flags = 0;
  std::uint64_t addr = 0;
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
  std::uint32_t link = 0;
  std::uint32_t info = 0;
  std::uint64_t addralign = 0;
  std::uint64_t entsize = 0;
};

/// One symbol of .symtab or .dynsym.
struct Symbol {
  std::uint32_t index = 0;    ///< position in its table
  std::string name;           ///< from the table's string table (empty for most section symbols)
  std::uint64_t value = 0;
  std::uint64_t size = 0;
  std::uint8_t type = 0;      ///< STT_*
  std::uint8_t binding = 0;   ///< STB_*
  std::uint8_t visibility = 0;///< STV_*
  std::uint8_t other = 0;     ///< st_other as stored
  std::uint32_t shndx = 0;    ///< section index (SHN_XINDEX resolved through SHT_SYMTAB_SHNDX)
  std::string section_name;   ///< name of section shndx when it is a real section, else empty
};

/// One program header.
struct ProgramHeader {
  std::uint32_t index = 0;
  std::uint32_t type = 0;
  std::uint32_t flags = 0;
  std::uint64_t offset = 0;
  std::uint64_t vaddr = 0;
  std::uint64_t paddr = 0;
  std::uint64_t filesz = 0;
  std::uint64_t memsz = 0;
  std::uint64_t align = 0;
};

/// One note of an SHT_NOTE section. `desc` points into the ElfFile it came from.
struct Note {
  std::string name;                    ///< owner, without the terminating NUL ("AMDGPU")
  std::uint32_t type = 0;              ///< n_type
  std::span<const std::uint8_t> desc;  ///< the descriptor bytes (n_descsz of them)
  std::uint64_t offset = 0;            ///< file offset of the note header
  std::uint64_t desc_offset = 0;       ///< file offset of the descriptor
  std::uint32_t section = 0;           ///< index of the SHT_NOTE section holding it
};

/// One relocation entry of an SHT_RELA or SHT_REL section.
struct Relocation {
  std::uint32_t section = 0;         ///< index of the SHT_RELA/SHT_REL section
  std::uint32_t target_section = 0;  ///< sh_info: the section it applies to (0 for dynamic relocations)
  std::uint32_t symbol_table = 0;    ///< sh_link: the symbol table symbol indexes refer to (0 = none)
  std::uint64_t offset = 0;          ///< r_offset
  std::uint64_t info = 0;            ///< r_info as stored
  std::uint32_t type = 0;            ///< ELF64_R_TYPE(r_info), an R_AMDGPU_* value
  std::uint32_t symbol = 0;          ///< ELF64_R_SYM(r_info)
  std::string symbol_name;           ///< the symbol's name; a section symbol's section name when it has none
  std::int64_t addend = 0;           ///< r_addend (0 for SHT_REL)
  bool has_addend = false;           ///< true for SHT_RELA
};

/// gABI / readelf spelling of a section type ("PROGBITS"), or "0x..." for others.
[[nodiscard]] inline std::string section_type_name(std::uint32_t t) {
  switch (t) {
    case elf::sht_null: return "NULL";
    case elf::sht_progbits: return "PROGBITS";
    case elf::sht_symtab: return "SYMTAB";
    case elf::sht_strtab: return "STRTAB";
    case elf::sht_rela: return "RELA";
    case elf::sht_hash: return "HASH";
    case elf::sht_dynamic: return "DYNAMIC";
    case elf::sht_note: return "NOTE";
    case elf::sht_nobits: return "NOBITS";
    case elf::sht_rel: return "REL";
    case elf::sht_shlib: return "SHLIB";
    case elf::sht_dynsym: return "DYNSYM";
    case elf::sht_init_array: return "INIT_ARRAY";
    case elf::sht_fini_array: return "FINI_ARRAY";
    case elf::sht_preinit_array: return "PREINIT_ARRAY";
    case elf::sht_group: return "GROUP";
    case elf::sht_symtab_shndx: return "SYMTAB SECTION INDICES";
    case elf::sht_relr: return "RELR";
    case elf::sht_gnu_hash: return "GNU_HASH";
    case elf::sht_gnu_verdef: return "VERDEF";
    case elf::sht_gnu_verneed: return "VERNEED";
    case elf::sht_gnu_versym: return "VERSYM";
    case elf::sht_llvm_addrsig: return "LLVM_ADDRSIG";
    default: return detail::to_hex(t);
  }
}

/// readelf spelling of a segment type ("LOAD").
[[nodiscard]] inline std::string segment_type_name(std::uint32_t t) {
  switch (t) {
    case elf::pt_null: return "NULL";
    case elf::pt_load: return "LOAD";
    case elf::pt_dynamic: return "DYNAMIC";
    case elf::pt_interp: return "INTERP";
    case elf::pt_note: return "NOTE";
    case elf::pt_shlib: return "SHLIB";
    case elf::pt_phdr: return "PHDR";
    case elf::pt_tls: return "TLS";
    case elf::pt_gnu_eh_frame: return "GNU_EH_FRAME";
    case elf::pt_gnu_stack: return "GNU_STACK";
    case elf::pt_gnu_relro: return "GNU_RELRO";
    case elf::pt_gnu_property: return "GNU_PROPERTY";
    default: return detail::to_hex(t);
  }
}

/// readelf spelling of a symbol type ("FUNC"); 10 is AMDGPU's STT_AMDGPU_HSA_KERNEL.
[[nodiscard]] inline std::string symbol_type_name(std::uint8_t t) {
  switch (t) {
    case elf::stt_notype: return "NOTYPE";
    case elf::stt_object: return "OBJECT";
    case elf::stt_func: return "FUNC";
    case elf::stt_section: return "SECTION";
    case elf::stt_file: return "FILE";
    case elf::stt_common: return "COMMON";
    case elf::stt_tls: return "TLS";
    case elf::stt_amdgpu_hsa_kernel: return "AMDGPU_HSA_KERNEL";
    default: return detail::to_hex(t);
  }
}

/// readelf spelling of a symbol binding ("GLOBAL").
[[nodiscard]] inline std::string symbol_binding_name(std::uint8_t b) {
  switch (b) {
    case elf::stb_local: return "LOCAL";
    case elf::stb_global: return "GLOBAL";
    case elf::stb_weak: return "WEAK";
    case elf::stb_gnu_unique: return "UNIQUE";
    default: return detail::to_hex(b);
  }
}

/// readelf spelling of a symbol visibility ("PROTECTED").
[[nodiscard]] inline std::string symbol_visibility_name(std::uint8_t v) {
  switch (v) {
    case elf::stv_default: return "DEFAULT";
    case elf::stv_internal: return "INTERNAL";
    case elf::stv_hidden: return "HIDDEN";
    case elf::stv_protected: return "PROTECTED";
    default: return detail::to_hex(v);
  }
}

/// R_AMDGPU_* name of a relocation type (llvm/BinaryFormat/ELFRelocs/AMDGPU.def; AMDGPUUsage "Relocation Records").
[[nodiscard]] inline std::string relocation_type_name(std::uint32_t t) {
  switch (t) {
    case 0: return "R_AMDGPU_NONE";
    case 1: return "R_AMDGPU_ABS32_LO";
    case 2: return "R_AMDGPU_ABS32_HI";
    case 3: return "R_AMDGPU_ABS64";
    case 4: return "R_AMDGPU_REL32";
    case 5: return "R_AMDGPU_REL64";
    case 6: return "R_AMDGPU_ABS32";
    case 7: return "R_AMDGPU_GOTPCREL";
    case 8: return "R_AMDGPU_GOTPCREL32_LO";
    case 9: return "R_AMDGPU_GOTPCREL32_HI";
    case 10: return "R_AMDGPU_REL32_LO";
    case 11: return "R_AMDGPU_REL32_HI";
    case 13: return "R_AMDGPU_RELATIVE64";
    case 14: return "R_AMDGPU_REL16";
    default: return detail::to_hex(t);
  }
}

/// A parsed AMDGPU HSA code object (ELF64 little-endian, ET_DYN or ET_REL, code object v4-v6).
///
/// It owns its bytes. `parse` checks everything the accessors expose (header, section and program header
/// tables, string tables, symbol tables, relocation tables, notes), so a parsed ElfFile is internally
/// consistent and every accessor is infallible. Spans returned by `data`/`notes` point into this object's
/// bytes: they stay valid while it lives (moving it keeps them valid; a copy has its own).
class ElfFile {
 public:
  /// Parses `bytes`; `file_name` only labels diagnostics. Every malformed or unsupported input is a Diag
  /// (DiagCode::object_error) naming the problem and where it is.
  [[nodiscard]] static Expected<ElfFile> parse(std::vector<std::uint8_t> bytes, std::string file_name = {}) {
    ElfFile f;
    f.bytes_ = std::move(bytes);
    f.file_name_ = std::move(file_name);
    if (auto r = f.parse_all(); !r) return unexpected(std::move(r).error());
    return f;
  }

  /// Reads and parses a file (io_error when it cannot be read).
  [[nodiscard]] static Expected<ElfFile> read(const std::filesystem::path& path) {
    auto text = read_file(path);
    if (!text) return unexpected(std::move(text).error());
    std::vector<std::uint8_t> b(text->begin(), text->end());
    return parse(std::move(b), path.string());
  }

  [[nodiscard]] const std::string& file_name() const noexcept { return file_name_; }
  [[nodiscard]] std::span<const std::uint8_t> bytes() const noexcept { return bytes_; }
  [[nodiscard]] const ElfHeader& header() const noexcept { return hdr_; }
  [[nodiscard]] std::uint16_t e_type() const noexcept { return hdr_.type; }
  [[nodiscard]] std::uint16_t e_machine() const noexcept { return hdr_.machine; }
  [[nodiscard]] std::uint32_t e_flags() const noexcept { return hdr_.flags; }
  [[nodiscard]] std::uint8_t os_abi() const noexcept { return hdr_.os_abi; }
  [[nodiscard]] std::uint8_t abi_version() const noexcept { return hdr_.abi_version; }
  [[nodiscard]] bool is_relocatable() const noexcept { return hdr_.type == elf::et_rel; }
  [[nodiscard]] bool is_shared_object() const noexcept { return hdr_.type == elf::et_dyn; }

  /// Code object version (4, 5 or 6) from e_ident[EI_ABIVERSION] (AMDGPUUsage "AMDGPU ELF Header" table;
  /// ELF.h ELFABIVERSION_AMDGPU_HSA_V4..V6 = 2..4).
  [[nodiscard]] unsigned code_object_version() const noexcept { return co_version_; }
  /// e_flags decoded.
  [[nodiscard]] const TargetId& target_info() const noexcept { return tid_; }
  /// gfx90a / gfx942 / gfx950, else nullopt.
  [[nodiscard]] std::optional<Target> target() const { return tid_.target(); }
  /// LLVM target id, e.g. "gfx942:sramecc+:xnack-".
  [[nodiscard]] std::string target_id() const { return tid_.str(); }

  [[nodiscard]] const std::vector<Section>& sections() const noexcept { return sections_; }
  /// The first section named `name`, or nullptr.
  [[nodiscard]] const Section* find_section(std::string_view name) const noexcept {
    for (const auto& s : sections_)
      if (s.index != 0 && s.name == name) return &s;
    return nullptr;
  }
  /// A section's bytes (empty for SHT_NOBITS, or for a Section that is not one of this file's).
  [[nodiscard]] std::span<const std::uint8_t> data(const Section& s) const noexcept {
    if (s.type == elf::sht_nobits || s.type == elf::sht_null) return {};
    if (!detail::in_bounds(s.offset, s.size, bytes_.size())) return {};
    return std::span<const std::uint8_t>(bytes_).subspan(static_cast<std::size_t>(s.offset),
                                                         static_cast<std::size_t>(s.size));
  }

  /// .symtab (the first SHT_SYMTAB section), empty if there is none; index 0 is the null symbol.
  [[nodiscard]] const std::vector<Symbol>& symbols() const noexcept { return symtab_; }
  /// .dynsym (the first SHT_DYNSYM section), empty if there is none.
  [[nodiscard]] const std::vector<Symbol>& dynamic_symbols() const noexcept { return dynsym_; }
  /// A symbol by name: .symtab first, then .dynsym; nullptr if absent.
  [[nodiscard]] const Symbol* find_symbol(std::string_view name) const noexcept {
    for (const auto* table : {&symtab_, &dynsym_})
      for (const auto& s : *table)
        if (s.index != 0 && s.name == name) return &s;
    return nullptr;
  }

  [[nodiscard]] const std::vector<ProgramHeader>& program_headers() const noexcept { return phdrs_; }

  /// Every note of every SHT_NOTE section, in file order.
  [[nodiscard]] std::vector<Note> notes() const {
    std::vector<Note> out;
    out.reserve(notes_.size());
    for (const auto& n : notes_) {
      Note x;
      x.name = n.name;
      x.type = n.type;
      x.offset = n.offset;
      x.desc_offset = n.desc_offset;
      x.section = n.section;
      x.desc = std::span<const std::uint8_t>(bytes_).subspan(static_cast<std::size_t>(n.desc_offset),
                                                            static_cast<std::size_t>(n.desc_size));
      out.push_back(std::move(x));
    }
    return out;
  }

  /// Every entry of every SHT_RELA / SHT_REL section, in file order.
  [[nodiscard]] const std::vector<Relocation>& relocations() const noexcept { return relocs_; }

  /// Where diagnostics about this file point.
  [[nodiscard]] Loc loc() const {
    Loc l;
    l.file = file_name_;
    return l;
  }

  /// "section 7 (.text)" for diagnostics.
  [[nodiscard]] std::string describe_section(std::uint32_t index) const {
    std::string s = "section " + std::to_string(index);
    if (index < sections_.size() && !sections_[index].name.empty()) s += " (" + printable(sections_[index].name) + ")";
    return s;
  }

 private:
  struct NoteRecord {
    std::string name;
    std::uint32_t type = 0;
    std::uint64_t offset = 0, desc_offset = 0, desc_size = 0;
    std::uint32_t section = 0;
  };

  // Upper bound on section and symbol-table counts beyond what the file size already bounds.
  static constexpr std::uint64_t max_sections = 1u << 16;

  std::string file_name_;
  std::vector<std::uint8_t> bytes_;
  ElfHeader hdr_;
  unsigned co_version_ = 0;
  TargetId tid_;
  std::vector<Section> sections_;
  std::vector<Symbol> symtab_, dynsym_;
  std::vector<ProgramHeader> phdrs_;
  std::vector<NoteRecord> notes_;
  std::vector<Relocation> relocs_;
  // Parse-time only (cleared when parsing ends): every symbol table by section index, and the NUL positions of
  // each string table, so that crafted files with many tables or long unterminated names cost linear time.
  std::map<std::uint32_t, std::vector<Symbol>> sym_tables_;
  mutable std::map<std::uint32_t, std::vector<std::uint64_t>> nuls_;

  [[nodiscard]] Unexpected err(std::string message, std::string hint = {}) const {
    return fail(DiagCode::object_error, std::move(message), loc(), {}, std::move(hint));
  }
  [[nodiscard]] std::string file_end() const {
    return "the end of the file (" + detail::to_hex(bytes_.size()) + " bytes)";
  }
  template <class T>
  [[nodiscard]] T rd(std::uint64_t off) const noexcept {
    return detail::load_le<T>(bytes_, off);
  }

  /// A NUL-terminated string at `off` inside string table section `strtab`; `what` names the reader.
  [[nodiscard]] Expected<std::string> read_string(const Section& strtab, std::uint64_t off,
                                                  const std::string& what) const {
    if (strtab.type == elf::sht_nobits || strtab.type == elf::sht_null)
      return err(what + ": its string table " + describe_section(strtab.index) + " has no data (" +
                 section_type_name(strtab.type) + ")");
    if (!detail::in_bounds(strtab.offset, strtab.size, bytes_.size()))
      return err(what + ": its string table " + describe_section(strtab.index) + " (offset " +
                 detail::to_hex(strtab.offset) + " + size " + detail::to_hex(strtab.size) + ") is past " + file_end());
    if (off >= strtab.size)
      return err(what + ": name offset " + detail::to_hex(off) + " is outside the string table " +
                 describe_section(strtab.index) + " (" + detail::to_hex(strtab.size) + " bytes)");
    const auto* table = bytes_.data() + strtab.offset;
    auto [it, fresh] = nuls_.try_emplace(strtab.index);
    if (fresh)
      for (std::uint64_t i = 0; i < strtab.size; ++i)
        if (table[i] == 0) it->second.push_back(i);
    const auto nul = std::lower_bound(it->second.begin(), it->second.end(), off);
    if (nul == it->second.end())
      return err(what + ": the name at offset " + detail::to_hex(off) + " in " + describe_section(strtab.index) +
                 " is not NUL-terminated");
    return std::string(reinterpret_cast<const char*>(table + off), static_cast<std::size_t>(*nul - off));
  }

  [[nodiscard]] Expected<void> parse_all() {
    if (auto r = parse_header(); !r) return r;
    if (auto r = parse_sections(); !r) return r;
    if (auto r = parse_program_headers(); !r) return r;
    if (auto r = parse_symbol_tables(); !r) return r;
    if (auto r = parse_relocations(); !r) return r;
    if (auto r = parse_notes(); !r) return r;
    sym_tables_.clear();
    nuls_.clear();
    return {};
  }

  [[nodiscard]] Expected<void> parse_header() {
    const auto n = bytes_.size();
    static constexpr std::uint8_t magic[4] = {0x7f, 'E', 'L', 'F'};
    if (n < 4 || std::memcmp(bytes_.data(), magic, 4) != 0)
      return err(n < 4 ? "not an ELF file: it is only " + std::to_string(n) + " bytes long"
                       : "not an ELF file: the first bytes are not 7f 45 4c 46 (\\x7fELF)");
    if (n < 16) return err("truncated ELF header: the file has " + std::to_string(n) + " bytes, e_ident needs 16");
    const std::uint8_t cls = bytes_[4], data = bytes_[5], ver = bytes_[6];
    if (cls == elf::elfclass32)
      return err("ELF32 (EI_CLASS 1) is not supported: AMDGPU code objects are ELF64");
    if (cls != elf::elfclass64) return err("unknown ELF class " + std::to_string(cls) + " in e_ident[EI_CLASS]");
    if (data == elf::elfdata2msb)
      return err("big-endian ELF (EI_DATA 2) is not supported: AMDGPU code objects are little-endian");
    if (data != elf::elfdata2lsb) return err("unknown ELF data encoding " + std::to_string(data) + " in e_ident[EI_DATA]");
    if (ver != elf::ev_current)
      return err("unsupported ELF version " + std::to_string(ver) + " in e_ident[EI_VERSION] (expected 1)");
    if (n < elf::ehdr_size)
      return err("truncated ELF header: the file has " + std::to_string(n) + " bytes, an ELF64 header needs 64");
    hdr_.os_abi = bytes_[7];
    hdr_.abi_version = bytes_[8];
    hdr_.type = rd<std::uint16_t>(16);
    hdr_.machine = rd<std::uint16_t>(18);
    hdr_.version = rd<std::uint32_t>(20);
    hdr_.entry = rd<std::uint64_t>(24);
    hdr_.phoff = rd<std::uint64_t>(32);
    hdr_.shoff = rd<std::uint64_t>(40);
    hdr_.flags = rd<std::uint32_t>(48);
    hdr_.ehsize = rd<std::uint16_t>(52);
    hdr_.phentsize = rd<std::uint16_t>(54);
    hdr_.phnum = rd<std::uint16_t>(56);
    hdr_.shentsize = rd<std::uint16_t>(58);
    hdr_.shnum = rd<std::uint16_t>(60);
    hdr_.shstrndx = rd<std::uint16_t>(62);

    if (hdr_.machine != elf::em_amdgpu)
      return err("not an AMDGPU object: e_machine is " + std::to_string(hdr_.machine), "AMDGPU is EM_AMDGPU (224)");
    if (hdr_.os_abi != elf::elfosabi_amdgpu_hsa) {
      std::string what = hdr_.os_abi == elf::elfosabi_amdgpu_pal      ? " (AMDGPU PAL)"
                         : hdr_.os_abi == elf::elfosabi_amdgpu_mesa3d ? " (AMDGPU Mesa3D)"
                                                                      : "";
      return err("not an HSA code object: OS ABI (e_ident[EI_OSABI]) is " + std::to_string(hdr_.os_abi) + what,
                 "asmevo reads ELFOSABI_AMDGPU_HSA (64) code objects");
    }
    switch (hdr_.abi_version) {
      case elf::abiversion_hsa_v4: co_version_ = 4; break;
      case elf::abiversion_hsa_v5: co_version_ = 5; break;
      case elf::abiversion_hsa_v6: co_version_ = 6; break;
      case elf::abiversion_hsa_v2:
      case elf::abiversion_hsa_v3:
        return err("unsupported code object version " + std::to_string(hdr_.abi_version + 2) +
                       " (ABI version " + std::to_string(hdr_.abi_version) + ")",
                   "asmevo reads code object v4, v5 and v6 (ABI versions 2, 3, 4)");
      default:
        return err("unsupported code object version: unknown ABI version " + std::to_string(hdr_.abi_version),
                   "asmevo reads code object v4, v5 and v6 (ABI versions 2, 3, 4)");
    }
    if (hdr_.type != elf::et_dyn && hdr_.type != elf::et_rel)
      return err("unsupported ELF type " + std::to_string(hdr_.type) +
                 " (e_type): expected a shared object (ET_DYN, 3) or a relocatable object (ET_REL, 1)");
    if (hdr_.version != elf::ev_current)
      return err("unsupported ELF version " + std::to_string(hdr_.version) + " in e_version (expected 1)");
    if (hdr_.ehsize != elf::ehdr_size)
      return err("e_ehsize is " + std::to_string(hdr_.ehsize) + ", expected 64 for ELF64");
    tid_ = decode_flags(hdr_.flags);
    return {};
  }

  [[nodiscard]] Expected<void> parse_sections() {
    if (hdr_.shoff == 0) {
      if (hdr_.shnum != 0) return err("e_shnum is " + std::to_string(hdr_.shnum) + " but e_shoff is 0");
      if (hdr_.shstrndx != 0) return err("e_shstrndx is " + std::to_string(hdr_.shstrndx) + " but there are no sections");
      return {};
    }
    if (hdr_.shentsize != elf::shdr_size)
      return err("e_shentsize is " + std::to_string(hdr_.shentsize) + ", expected 64 for ELF64");
    if (!detail::in_bounds(hdr_.shoff, elf::shdr_size, bytes_.size()))
      return err("the section header table at e_shoff " + detail::to_hex(hdr_.shoff) + " is past " + file_end());
    // Extended numbering (gABI "Sections"): e_shnum 0 puts the count in section 0's sh_size, e_shstrndx
    // SHN_XINDEX puts the index in section 0's sh_link.
    std::uint64_t count = hdr_.shnum;
    if (count == 0) count = rd<std::uint64_t>(hdr_.shoff + 32);
    if (count > max_sections)
      return err("the section count " + std::to_string(count) + " is over the limit of " +
                 std::to_string(max_sections));
    const auto table = detail::checked_mul(count, elf::shdr_size);
    if (!table || !detail::in_bounds(hdr_.shoff, *table, bytes_.size()))
      return err("the section header table at e_shoff " + detail::to_hex(hdr_.shoff) + " (" + std::to_string(count) +
                 " entries of 64 bytes) is past " + file_end());
    hdr_.shnum = static_cast<std::uint32_t>(count);
    std::uint64_t strndx = hdr_.shstrndx;
    if (strndx == elf::shn_xindex) strndx = rd<std::uint32_t>(hdr_.shoff + 40);
    if (strndx >= count)
      return err("e_shstrndx " + std::to_string(strndx) + " is out of range (" + std::to_string(count) + " sections)");
    hdr_.shstrndx = static_cast<std::uint32_t>(strndx);
    if (hdr_.phnum == elf::pn_xnum) hdr_.phnum = rd<std::uint32_t>(hdr_.shoff + 44);

    sections_.resize(static_cast<std::size_t>(count));
    for (std::uint32_t i = 0; i < count; ++i) {
      const std::uint64_t at = hdr_.shoff + std::uint64_t{i} * elf::shdr_size;
      Section& s = sections_[i];
      s.index = i;
      s.name_offset = rd<std::uint32_t>(at);
      s.type = rd<std::uint32_t>(at + 4);
      s.flags = rd<std::uint64_t>(at + 8);
      s.addr = rd<std::uint64_t>(at + 16);
      s.offset = rd<std::uint64_t>(at + 24);
      s.size = rd<std::uint64_t>(at + 32);
      s.link = rd<std::uint32_t>(at + 40);
      s.info = rd<std::uint32_t>(at + 44);
      s.addralign = rd<std::uint64_t>(at + 48);
      s.entsize = rd<std::uint64_t>(at + 56);
    }
    // Names first (so that later errors can say "section 7 (.text)"); read_string checks the name table's own
    // bounds. Section 0 is the null entry (its size/link may hold the extended counts above); it names nothing
    // and has no contents.
    if (hdr_.shstrndx != 0) {
      const Section& names = sections_[hdr_.shstrndx];
      for (std::uint32_t i = 1; i < count; ++i) {
        auto name = read_string(names, sections_[i].name_offset, "section " + std::to_string(i));
        if (!name) return unexpected(std::move(name).error());
        sections_[i].name = std::move(*name);
      }
    }
    for (std::uint32_t i = 1; i < count; ++i) {
      const Section& s = sections_[i];
      if (s.type != elf::sht_nobits && s.type != elf::sht_null && !detail::in_bounds(s.offset, s.size, bytes_.size()))
        return err(describe_section(i) + ": offset " + detail::to_hex(s.offset) + " + size " + detail::to_hex(s.size) +
                   " is past " + file_end());
    }
    for (std::uint32_t i = 1; i < count; ++i) {
      const Section& s = sections_[i];
      if (s.addralign > 1 && (s.addralign & (s.addralign - 1)) != 0)
        return err(describe_section(i) + ": alignment " + detail::to_hex(s.addralign) + " is not a power of two");
    }
    return {};
  }

  [[nodiscard]] Expected<void> parse_program_headers() {
    if (hdr_.phoff == 0 || hdr_.phnum == 0) {
      if (hdr_.phnum != 0) return err("e_phnum is " + std::to_string(hdr_.phnum) + " but e_phoff is 0");
      return {};
    }
    if (hdr_.phentsize != elf::phdr_size)
      return err("e_phentsize is " + std::to_string(hdr_.phentsize) + ", expected 56 for ELF64");
    if (hdr_.phnum > max_sections)
      return err("the program header count " + std::to_string(hdr_.phnum) + " is over the limit of " +
                 std::to_string(max_sections));
    const auto table = detail::checked_mul(hdr_.phnum, elf::phdr_size);
    if (!table || !detail::in_bounds(hdr_.phoff, *table, bytes_.size()))
      return err("the program header table at e_phoff " + detail::to_hex(hdr_.phoff) + " (" +
                 std::to_string(hdr_.phnum) + " entries of 56 bytes) is past " + file_end());
    phdrs_.resize(hdr_.phnum);
    for (std::uint32_t i = 0; i < hdr_.phnum; ++i) {
      const std::uint64_t at = hdr_.phoff + std::uint64_t{i} * elf::phdr_size;
      ProgramHeader& p = phdrs_[i];
      p.index = i;
      p.type = rd<std::uint32_t>(at);
      p.flags = rd<std::uint32_t>(at + 4);
      p.offset = rd<std::uint64_t>(at + 8);
      p.vaddr = rd<std::uint64_t>(at + 16);
      p.paddr = rd<std::uint64_t>(at + 24);
      p.filesz = rd<std::uint64_t>(at + 32);
      p.memsz = rd<std::uint64_t>(at + 40);
      p.align = rd<std::uint64_t>(at + 48);
      if (!detail::in_bounds(p.offset, p.filesz, bytes_.size()))
        return err("program header " + std::to_string(i) + " (" + segment_type_name(p.type) + "): offset " +
                   detail::to_hex(p.offset) + " + file size " + detail::to_hex(p.filesz) + " is past " + file_end());
    }
    return {};
  }

  /// The section `s` links to through sh_link, checked to exist.
  [[nodiscard]] Expected<const Section*> linked(const Section& s, std::string_view role) const {
    if (s.link == 0 || s.link >= sections_.size())
      return err(describe_section(s.index) + ": sh_link " + std::to_string(s.link) + " does not name its " +
                 std::string(role) + " (" + std::to_string(sections_.size()) + " sections)");
    return &sections_[s.link];
  }

  [[nodiscard]] Expected<void> check_table(const Section& s, std::uint64_t entsize) const {
    if (s.type == elf::sht_nobits) return err(describe_section(s.index) + ": a table cannot be SHT_NOBITS");
    if (s.entsize != entsize)
      return err(describe_section(s.index) + ": entry size is " + std::to_string(s.entsize) + ", expected " +
                 std::to_string(entsize));
    if (s.size % entsize != 0)
      return err(describe_section(s.index) + ": size " + detail::to_hex(s.size) + " is not a multiple of the entry size " +
                 std::to_string(entsize));
    return {};
  }

  [[nodiscard]] Expected<std::vector<Symbol>> read_symbols(const Section& s) const {
    if (auto r = check_table(s, elf::sym_size); !r) return unexpected(std::move(r).error());
    auto strtab = linked(s, "string table");
    if (!strtab) return unexpected(std::move(strtab).error());
    // SHN_XINDEX symbols find their section index in an SHT_SYMTAB_SHNDX section linked to this table.
    const Section* shndx_table = nullptr;
    for (const auto& t : sections_)
      if (t.type == elf::sht_symtab_shndx && t.link == s.index) shndx_table = &t;
    const std::uint64_t count = s.size / elf::sym_size;
    std::vector<Symbol> out;
    out.reserve(static_cast<std::size_t>(count));
    for (std::uint64_t i = 0; i < count; ++i) {
      const std::uint64_t at = s.offset + i * elf::sym_size;
      Symbol y;
      y.index = static_cast<std::uint32_t>(i);
      const std::uint32_t name = rd<std::uint32_t>(at);
      const std::uint8_t info = bytes_[at + 4];
      y.other = bytes_[at + 5];
      y.shndx = rd<std::uint16_t>(at + 6);
      y.value = rd<std::uint64_t>(at + 8);
      y.size = rd<std::uint64_t>(at + 16);
      y.type = info & 0xf;
      y.binding = info >> 4;
      y.visibility = y.other & 0x3;
      const std::string where = "symbol " + std::to_string(i) + " of " + describe_section(s.index);
      auto nm = read_string(**strtab, name, where);
      if (!nm) return unexpected(std::move(nm).error());
      y.name = std::move(*nm);
      bool real_section = y.shndx != elf::shn_undef && y.shndx < elf::shn_loreserve;
      if (y.shndx == elf::shn_xindex) {
        if (!shndx_table)
          return err(where + " (" + printable(y.name) + "): section index SHN_XINDEX but no SHT_SYMTAB_SHNDX section for it");
        if (shndx_table->type == elf::sht_nobits || !detail::in_bounds(i * 4, 4, shndx_table->size))
          return err(where + " (" + printable(y.name) + "): no entry for it in " + describe_section(shndx_table->index));
        y.shndx = rd<std::uint32_t>(shndx_table->offset + i * 4);
        real_section = y.shndx != elf::shn_undef;
      }
      if (real_section && y.shndx >= sections_.size())
        return err(where + " (" + printable(y.name) + "): section index " + std::to_string(y.shndx) + " is out of range (" +
                   std::to_string(sections_.size()) + " sections)");
      if (real_section) y.section_name = sections_[y.shndx].name;
      out.push_back(std::move(y));
    }
    return out;
  }

  [[nodiscard]] Expected<void> parse_symbol_tables() {
    bool have_symtab = false, have_dynsym = false;
    for (const auto& s : sections_) {
      if (s.index == 0 || (s.type != elf::sht_symtab && s.type != elf::sht_dynsym)) continue;
      auto syms = read_symbols(s);
      if (!syms) return unexpected(std::move(syms).error());
      if (s.type == elf::sht_symtab && !have_symtab) {
        symtab_ = *syms;
        have_symtab = true;
      } else if (s.type == elf::sht_dynsym && !have_dynsym) {
        dynsym_ = *syms;
        have_dynsym = true;
      }
      sym_tables_[s.index] = std::move(*syms);
    }
    return {};
  }

  [[nodiscard]] Expected<void> parse_relocations() {
    for (const auto& s : sections_) {
      if (s.index == 0 || (s.type != elf::sht_rela && s.type != elf::sht_rel)) continue;
      const bool rela = s.type == elf::sht_rela;
      if (auto r = check_table(s, rela ? elf::rela_size : elf::rel_size); !r) return r;
      static const std::vector<Symbol> no_symbols;
      const std::vector<Symbol>* syms_ptr = &no_symbols;
      if (s.link != 0) {
        auto symtab = linked(s, "symbol table");
        if (!symtab) return unexpected(std::move(symtab).error());
        auto t = sym_tables_.find(s.link);  // every SHT_SYMTAB / SHT_DYNSYM was read by parse_symbol_tables
        if (t == sym_tables_.end())
          return err(describe_section(s.index) + ": sh_link " + std::to_string(s.link) + " is " +
                     describe_section(s.link) + ", not a symbol table");
        syms_ptr = &t->second;
      }
      const std::vector<Symbol>& syms = *syms_ptr;
      if (s.info >= sections_.size())
        return err(describe_section(s.index) + ": sh_info " + std::to_string(s.info) +
                   " (the section it applies to) is out of range (" + std::to_string(sections_.size()) + " sections)");
      const std::uint64_t entsize = rela ? elf::rela_size : elf::rel_size;
      const std::uint64_t count = s.size / entsize;
      for (std::uint64_t i = 0; i < count; ++i) {
        const std::uint64_t at = s.offset + i * entsize;
        Relocation r;
        r.section = s.index;
        r.target_section = s.info;
        r.symbol_table = s.link;
        r.offset = rd<std::uint64_t>(at);
        r.info = rd<std::uint64_t>(at + 8);
        r.type = static_cast<std::uint32_t>(r.info & 0xffffffffu);  // ELF64_R_TYPE
        r.symbol = static_cast<std::uint32_t>(r.info >> 32);          // ELF64_R_SYM
        r.has_addend = rela;
        if (rela) r.addend = static_cast<std::int64_t>(rd<std::uint64_t>(at + 16));
        if (r.symbol != 0) {
          if (r.symbol >= syms.size())
            return err("relocation " + std::to_string(i) + " of " + describe_section(s.index) + ": symbol index " +
                       std::to_string(r.symbol) + " is out of range (" + std::to_string(syms.size()) +
                       " symbols in its symbol table)");
          const Symbol& y = syms[r.symbol];
          r.symbol_name = y.name.empty() && y.type == elf::stt_section ? y.section_name : y.name;
        }
        relocs_.push_back(std::move(r));
      }
    }
    return {};
  }

  [[nodiscard]] Expected<void> parse_notes() {
    for (const auto& s : sections_) {
      if (s.index == 0 || s.type != elf::sht_note) continue;
      // Note entries are padded to the section's alignment: 4 (AMDGPU's notes) or 8 (gABI ELF64, as LLVM's
      // object reader decides by sh_addralign).
      std::uint64_t align = 4;
      if (s.addralign == 8) align = 8;
      else if (s.addralign > 8)
        return err(describe_section(s.index) + ": note alignment " + std::to_string(s.addralign) + " is not 4 or 8");
      std::uint64_t pos = 0;
      while (pos < s.size) {
        const std::uint64_t at = s.offset + pos;
        const std::string where = "note at offset " + detail::to_hex(at) + " in " + describe_section(s.index);
        if (s.size - pos < 12)
          return err(where + ": truncated note header (" + std::to_string(s.size - pos) + " bytes left, 12 needed)");
        const std::uint64_t namesz = rd<std::uint32_t>(at), descsz = rd<std::uint32_t>(at + 4);
        NoteRecord n;
        n.type = rd<std::uint32_t>(at + 8);
        n.offset = at;
        n.section = s.index;
        const std::uint64_t name_pos = pos + 12;  // all sums below stay far below 2^64: sizes are 32-bit
        if (namesz > s.size - name_pos)
          return err(where + ": name size " + detail::to_hex(namesz) + " runs past the end of the section (" +
                     detail::to_hex(s.size) + " bytes)");
        const auto* nb = bytes_.data() + s.offset + name_pos;
        const void* nul = std::memchr(nb, 0, static_cast<std::size_t>(namesz));
        n.name.assign(reinterpret_cast<const char*>(nb),
                      nul ? static_cast<std::size_t>(static_cast<const std::uint8_t*>(nul) - nb)
                          : static_cast<std::size_t>(namesz));
        const std::uint64_t desc_pos = *detail::align_up(name_pos + namesz, align);
        if (descsz > 0 && (desc_pos > s.size || descsz > s.size - desc_pos))
          return err(where + " (" + printable(n.name) + "): descriptor size " + detail::to_hex(descsz) +
                     " runs past the end of the section (" + detail::to_hex(s.size) + " bytes)");
        n.desc_offset = s.offset + std::min(desc_pos, s.size);
        n.desc_size = descsz;
        notes_.push_back(std::move(n));
        // The padding after the last note may be missing; stop at the section's end.
        pos = std::min(*detail::align_up(std::min(desc_pos, s.size) + descsz, align), s.size);
      }
    }
    return {};
  }
};

/// A copy of `file`'s bytes with the contents of section `section` replaced by `new_bytes` (the in-place patch
/// path). The new contents must have exactly the section's size; the section must exist once and have file data.
[[nodiscard]] inline Expected<std::vector<std::uint8_t>> replace_section_bytes(const ElfFile& file,
                                                                             std::string_view section,
                                                                             std::span<const std::uint8_t> new_bytes) {
  const Section* found = nullptr;
  for (const auto& s : file.sections()) {
    if (s.index == 0 || s.name != section) continue;
    if (found)
      return fail(DiagCode::usage,
                  "section name " + std::string(section) + " is ambiguous: sections " + std::to_string(found->index) +
                      " and " + std::to_string(s.index) + " both have it",
                  file.loc());
    found = &s;
  }
  if (!found) return fail(DiagCode::usage, "no section named " + std::string(section), file.loc());
  if (found->type == elf::sht_nobits)
    return fail(DiagCode::usage, file.describe_section(found->index) + " has no file data (SHT_NOBITS)", file.loc());
  if (new_bytes.size() != found->size)
    return fail(DiagCode::usage,
                file.describe_section(found->index) + " is " + std::to_string(found->size) +
                    " bytes; the replacement is " + std::to_string(new_bytes.size()) + " bytes",
                file.loc(), {}, "an in-place patch must keep the section's size");
  std::vector<std::uint8_t> out(file.bytes().begin(), file.bytes().end());
  std::copy(new_bytes.begin(), new_bytes.end(), out.begin() + static_cast<std::ptrdiff_t>(found->offset));
  return out;
}

}  // namespace asmevo::codeobject
