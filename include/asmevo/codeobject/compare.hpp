// Compares two code objects the way `asmevo roundtrip` and the ABI check need: code, descriptors, metadata,
// symbols, and the host-visible ABI of every kernel.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "asmevo/codeobject/elf.hpp"
#include "asmevo/codeobject/metadata.hpp"

namespace asmevo::codeobject {

/// What `roundtrip` checks, each with the differences found (empty = identical).
struct Comparison {
  std::vector<std::string> text;         ///< .text address, size and bytes
  std::vector<std::string> descriptors;  ///< every NAME.kd: 64 bytes
  std::vector<std::string> metadata;     ///< the metadata documents, compared as data (key order ignored)
  std::vector<std::string> symbols;      ///< .symtab and .dynsym as sets of (name, value, size, type, binding, visibility, section)
  std::vector<std::string> target;       ///< e_flags and code object version
  std::vector<std::string> data;         ///< every other allocated section with contents (.rodata, .data, ...): address, size, bytes
  std::vector<std::string> relocations;  ///< dynamic relocations (type, offset, symbol, addend)

  [[nodiscard]] bool identical() const noexcept {
    return text.empty() && descriptors.empty() && metadata.empty() && symbols.empty() && target.empty() && data.empty() &&
           relocations.empty();
  }
};

namespace detail {

[[nodiscard]] inline std::string hex64(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

/// ordered_json with every object's keys sorted, so that two documents compare as data.
[[nodiscard]] inline nlohmann::json canonical(const nlohmann::ordered_json& j) {
  if (j.is_object()) {
    nlohmann::json o = nlohmann::json::object();
    for (auto it = j.begin(); it != j.end(); ++it) o[it.key()] = canonical(it.value());
    return o;
  }
  if (j.is_array()) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& x : j) a.push_back(canonical(x));
    return a;
  }
  if (j.is_string()) return j.get<std::string>();
  if (j.is_boolean()) return j.get<bool>();
  if (j.is_number_unsigned()) return j.get<std::uint64_t>();
  if (j.is_number_integer()) return j.get<std::int64_t>();
  if (j.is_number_float()) return j.get<double>();
  if (j.is_binary()) return nlohmann::json::binary(j.get_binary());
  return nullptr;
}

using SymbolKey = std::tuple<std::string, std::uint64_t, std::uint64_t, int, int, int, std::string>;

[[nodiscard]] inline std::set<SymbolKey> symbol_set(const std::vector<Symbol>& table) {
  std::set<SymbolKey> out;
  for (const auto& s : table)
    if (s.index != 0) out.emplace(s.name, s.value, s.size, s.type, s.binding, s.visibility, s.section_name);
  return out;
}

[[nodiscard]] inline std::string describe(const SymbolKey& k) {
  return std::get<0>(k) + " (value " + hex64(std::get<1>(k)) + ", size " + std::to_string(std::get<2>(k)) + ", " +
         symbol_type_name(static_cast<std::uint8_t>(std::get<3>(k))) + " " +
         symbol_binding_name(static_cast<std::uint8_t>(std::get<4>(k))) + " " +
         symbol_visibility_name(static_cast<std::uint8_t>(std::get<5>(k))) +
         (std::get<6>(k).empty() ? std::string{} : " in " + std::get<6>(k)) + ")";
}

inline void compare_symbols(std::string_view table, const std::vector<Symbol>& a, const std::vector<Symbol>& b,
                            std::vector<std::string>& out) {
  const auto sa = symbol_set(a), sb = symbol_set(b);
  for (const auto& k : sa)
    if (!sb.count(k)) out.push_back(std::string(table) + ": only in the first: " + describe(k));
  for (const auto& k : sb)
    if (!sa.count(k)) out.push_back(std::string(table) + ": only in the second: " + describe(k));
}

/// The 64 descriptor bytes of `name`.kd, or empty when the symbol or its bytes are missing.
[[nodiscard]] inline std::vector<std::uint8_t> descriptor_bytes(const ElfFile& f, const std::string& kd) {
  const Symbol* s = f.find_symbol(kd);
  if (s == nullptr) return {};
  for (const auto& sec : f.sections())
    if (sec.index != 0 && (sec.flags & 2 /* SHF_ALLOC */) && s->value >= sec.addr && s->value + 64 <= sec.addr + sec.size) {
      auto d = f.data(sec);
      if (d.size() < s->value - sec.addr + 64) return {};
      auto b = d.subspan(static_cast<std::size_t>(s->value - sec.addr), 64);
      return {b.begin(), b.end()};
    }
  return {};
}

}  // namespace detail

/// Compares `a` (K0) with `b` (K1). Problems reading either side are reported as differences.
[[nodiscard]] inline Comparison compare_objects(const ElfFile& a, const ElfFile& b) {
  using namespace detail;
  Comparison c;
  if (a.e_flags() != b.e_flags())
    c.target.push_back("e_flags " + describe_flags(a.e_flags()) + " vs " + describe_flags(b.e_flags()));
  if (a.code_object_version() != b.code_object_version())
    c.target.push_back("code object v" + std::to_string(a.code_object_version()) + " vs v" + std::to_string(b.code_object_version()));

  const Section* ta = a.find_section(".text");
  const Section* tb = b.find_section(".text");
  if (!ta || !tb) {
    c.text.push_back(!ta ? "the first object has no .text" : "the second object has no .text");
  } else {
    if (ta->addr != tb->addr) c.text.push_back(".text address " + hex64(ta->addr) + " vs " + hex64(tb->addr));
    if (ta->size != tb->size) c.text.push_back(".text size " + std::to_string(ta->size) + " vs " + std::to_string(tb->size));
    auto da = a.data(*ta), db = b.data(*tb);
    const std::size_t n = std::min(da.size(), db.size());
    std::size_t diffs = 0;
    for (std::size_t i = 0; i < n; ++i)
      if (da[i] != db[i]) {
        if (diffs < 5) c.text.push_back(".text byte at " + hex64(ta->addr + i) + ": " + hex64(da[i]) + " vs " + hex64(db[i]));
        ++diffs;
      }
    if (diffs > 5) c.text.push_back("... " + std::to_string(diffs - 5) + " more differing bytes in .text");
  }

  auto ma = read_metadata(a), mb = read_metadata(b);
  if (!ma || !mb) {
    c.metadata.push_back(!ma ? "first: " + ma.error().message : "second: " + mb.error().message);
  } else if (canonical(*ma) != canonical(*mb)) {
    const auto patch = nlohmann::json::diff(canonical(*ma), canonical(*mb));
    for (std::size_t i = 0; i < patch.size() && i < 8; ++i) c.metadata.push_back(patch[i].dump());
    if (patch.size() > 8) c.metadata.push_back("... " + std::to_string(patch.size() - 8) + " more");
  }

  // Descriptors: every kernel the first object's metadata names.
  if (ma) {
    auto ks = kernels(*ma);
    if (ks)
      for (const auto& k : *ks) {
        auto x = descriptor_bytes(a, k.symbol), y = descriptor_bytes(b, k.symbol);
        if (y.empty()) c.descriptors.push_back(k.symbol + ": missing in the second object");
        else if (x != y)
          for (std::size_t i = 0; i < 64 && i < x.size(); ++i)
            if (x[i] != y[i]) c.descriptors.push_back(k.symbol + ": byte " + std::to_string(i) + ": " + hex64(x[i]) + " vs " + hex64(y[i]));
      }
  }

  // Data: the allocated sections the program defines (not the linker's own tables, whose layout the linker
  // decides; their addresses show in the symbols and the .text address).
  for (const auto& sa : a.sections()) {
    constexpr std::uint64_t alloc = 2, exec = 4;  // SHF_ALLOC, SHF_EXECINSTR
    if (sa.index == 0 || !(sa.flags & alloc) || (sa.flags & exec)) continue;
    if (sa.name == ".note" || sa.name == ".dynsym" || sa.name == ".gnu.hash" || sa.name == ".hash" || sa.name == ".dynstr" ||
        sa.name == ".dynamic" || sa.name == ".relro_padding" || sa.name.starts_with(".rela") || sa.name.starts_with(".rel."))
      continue;
    const Section* sb = b.find_section(sa.name);
    if (sb == nullptr) { c.data.push_back(sa.name + ": missing in the second object"); continue; }
    if (sa.addr != sb->addr || sa.size != sb->size || sa.type != sb->type)
      c.data.push_back(sa.name + ": address/size " + hex64(sa.addr) + "/" + std::to_string(sa.size) + " vs " + hex64(sb->addr) + "/" +
                       std::to_string(sb->size));
    else {
      auto x = a.data(sa), y = b.data(*sb);
      if (!std::equal(x.begin(), x.end(), y.begin(), y.end())) c.data.push_back(sa.name + ": contents differ");
    }
  }
  const auto relocs = [](const ElfFile& f) {
    std::set<std::tuple<std::uint64_t, std::uint32_t, std::string, std::int64_t>> s;
    for (const auto& r : f.relocations()) s.emplace(r.offset, r.type, r.symbol_name, r.addend);
    return s;
  };
  if (relocs(a) != relocs(b))
    c.relocations.push_back(std::to_string(a.relocations().size()) + " vs " + std::to_string(b.relocations().size()) +
                            " relocations, not the same set");

  compare_symbols(".symtab", a.symbols(), b.symbols(), c.symbols);
  compare_symbols(".dynsym", a.dynamic_symbols(), b.dynamic_symbols(), c.symbols);
  return c;
}

}  // namespace asmevo::codeobject
