// Tests of codeobject/elf.hpp: every corpus object and objects made here with llvm-mc-22 / ld.lld-22 are read as
// llvm-readelf-22 reads them (its text output is the oracle); malformed inputs give Diags that name the problem.
#include "asmevo/codeobject/elf.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "support/corpus.hpp"
#include "support/process.hpp"

namespace fs = std::filesystem;
using namespace asmevo;
using namespace asmevo::codeobject;

namespace {

using asmevo::test::RunResult;
/// Runs a shell command, capturing stdout (stderr goes to the test log).
RunResult run(const std::string& cmd) { return asmevo::test::run_command(cmd); }
std::string quote(const fs::path& p) { return asmevo::test::shell_quote(p); }

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> w;
  std::string t;
  while (in >> t) w.push_back(t);
  return w;
}

std::uint64_t num(const std::string& s, int base) { return std::strtoull(s.c_str(), nullptr, base); }

bool starts_with(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

std::vector<std::uint8_t> bytes_of(const fs::path& p) {
  const std::string s = asmevo::test::slurp(p);
  return {s.begin(), s.end()};
}


/// llvm-readelf-22's output for `path` with options `opts`. Starting the tool costs more than its work (it loads
/// libLLVM, ~80 ms), so the corpus test runs it once per option set over all objects first (prefetch_readelf) and
/// takes each object's part from there; anything not prefetched is run on its own.
std::map<std::pair<std::string, std::string>, RunResult>& readelf_cache() {
  static std::map<std::pair<std::string, std::string>, RunResult> cache;
  return cache;
}

RunResult readelf(const std::string& opts, const fs::path& path) {
  if (auto it = readelf_cache().find({opts, path.string()}); it != readelf_cache().end()) return it->second;
  return run(std::string(ASMEVO_LLVM_READELF) + " " + opts + " " + quote(path));
}

/// Runs llvm-readelf-22 once per option set over `files` (in batches, to bound the command line) and splits its
/// output at the "File: <path>" line it prints before each input when given several. A batch that fails, or whose
/// output does not name every file, is left to readelf() to run file by file.
void prefetch_readelf(const std::vector<fs::path>& files, const std::vector<std::string>& option_sets) {
  constexpr std::size_t batch = 64;
  for (const auto& opts : option_sets) {
    for (std::size_t b = 0; b < files.size(); b += batch) {
      const std::size_t e = std::min(files.size(), b + batch);
      if (e - b < 2) continue;  // one input: readelf prints no "File:" line
      std::string cmd = std::string(ASMEVO_LLVM_READELF) + " " + opts;
      for (std::size_t i = b; i < e; ++i) cmd += " " + quote(files[i]);
      const RunResult r = run(cmd);
      if (r.status != 0) continue;
      std::map<std::string, std::string> parts;
      std::string* cur = nullptr;
      for (const auto& line : asmevo::test::split_lines(r.out)) {
        if (starts_with(line, "File: ")) {
          cur = &parts[line.substr(6)];
          continue;
        }
        if (cur) *cur += line + "\n";
      }
      bool all = true;
      for (std::size_t i = b; i < e; ++i) all = all && parts.contains(files[i].string());
      if (!all) continue;
      for (std::size_t i = b; i < e; ++i) {
        RunResult one;
        one.status = 0;
        one.out = std::move(parts[files[i].string()]);
        readelf_cache()[{opts, files[i].string()}] = std::move(one);
      }
    }
  }
}

/// A fresh scratch folder for this test binary.
fs::path scratch_path() { return fs::temp_directory_path() / ("asmevo_elf_test_" + std::to_string(::getpid())); }

fs::path scratch() {
  static const fs::path dir = [] {
    fs::create_directories(scratch_path());
    return scratch_path();
  }();
  return dir;
}

/// Removes this process's scratch folder when the tests end.
class RemoveScratch : public ::testing::Environment {
 public:
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(scratch_path(), ec);
  }
};
[[maybe_unused]] ::testing::Environment* const remove_scratch = ::testing::AddGlobalTestEnvironment(new RemoveScratch);

/// readelf's GNU section-flag letters, in its order (llvm-readelf getGNUFlags).
std::string flag_letters(std::uint64_t f) {
  std::string s;
  const std::pair<std::uint64_t, char> table[] = {
      {elf::shf_write, 'W'}, {elf::shf_alloc, 'A'},      {elf::shf_execinstr, 'X'},
      {elf::shf_merge, 'M'}, {elf::shf_strings, 'S'},    {elf::shf_info_link, 'I'},
      {elf::shf_link_order, 'L'}, {elf::shf_os_nonconforming, 'O'}, {elf::shf_group, 'G'},
      {elf::shf_tls, 'T'},   {elf::shf_compressed, 'C'}, {elf::shf_exclude, 'E'}};
  for (auto [bit, c] : table)
    if (f & bit) s += c;
  return s;
}

FeatureSetting feature_from_flags_line(const std::vector<std::string>& toks, const std::string& name) {
  for (const auto& t : toks) {
    if (t == name) return FeatureSetting::any;
    if (t == name + "-") return FeatureSetting::off;
    if (t == name + "+") return FeatureSetting::on;
  }
  return FeatureSetting::unsupported;
}

/// Compares everything ElfFile reports about `path` with llvm-readelf-22's text; `checked` counts the facts
/// compared (so callers can assert that the oracle was really read).
void compare_with_readelf(const fs::path& path, std::size_t& checked) {
  SCOPED_TRACE(path.string());
  auto f = ElfFile::read(path);
  ASSERT_TRUE(f.has_value()) << (f ? "" : f.error().str());

  // Header.
  auto h = readelf("-h", path);
  EXPECT_EQ(h.status, 0);
  bool saw_flags = false;
  for (const auto& line : asmevo::test::split_lines(h.out)) {
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    key.erase(0, key.find_first_not_of(' '));
    std::string val = line.substr(colon + 1);
    val.erase(0, val.find_first_not_of(' '));
    if (key == "ABI Version") EXPECT_EQ(num(val, 10), f->abi_version()), ++checked;
    if (key == "Type") EXPECT_EQ(starts_with(val, "DYN") ? elf::et_dyn : starts_with(val, "REL") ? elf::et_rel : 0, f->e_type()), ++checked;
    if (key == "Machine") EXPECT_EQ(val, "EM_AMDGPU"), ++checked;
    if (key == "OS/ABI") EXPECT_EQ(val, "AMDGPU - HSA"), ++checked;
    if (key == "Start of section headers") EXPECT_EQ(num(val, 10), f->header().shoff), ++checked;
    if (key == "Start of program headers") EXPECT_EQ(num(val, 10), f->header().phoff), ++checked;
    if (key == "Number of section headers") EXPECT_EQ(num(val, 10), f->sections().size()), ++checked;
    if (key == "Number of program headers") EXPECT_EQ(num(val, 10), f->program_headers().size()), ++checked;
    if (key == "Section header string table index") EXPECT_EQ(num(val, 10), f->header().shstrndx), ++checked;
    if (key == "Flags") {
      // "0x54c, gfx942, xnack, sramecc" / "0x1000e5f, gfx9-4-generic, xnack-, sramecc+, generic_v1"
      saw_flags = true;
      std::vector<std::string> toks;
      std::stringstream ss(val);
      for (std::string t; std::getline(ss, t, ',');) {
        t.erase(0, t.find_first_not_of(' '));
        toks.push_back(t);
      }
      ASSERT_GE(toks.size(), 2u) << val;
      EXPECT_EQ(num(toks[0], 16), f->e_flags());
      EXPECT_EQ(toks[1], f->target_info().processor);
      EXPECT_EQ(feature_from_flags_line(toks, "xnack"), f->target_info().xnack) << val;
      EXPECT_EQ(feature_from_flags_line(toks, "sramecc"), f->target_info().sramecc) << val;
      unsigned generic = 0;
      for (const auto& t : toks)
        if (starts_with(t, "generic_v")) generic = static_cast<unsigned>(num(t.substr(9), 10));
      EXPECT_EQ(generic, f->target_info().generic_version) << val;
      checked += 5;
    }
  }
  EXPECT_TRUE(saw_flags);
  // ABI version -> code object version (ELF.h ELFABIVERSION_AMDGPU_HSA_V4..V6).
  EXPECT_EQ(f->code_object_version(), f->abi_version() + 2u);

  // Sections.
  auto s = readelf("-S -W", path);
  EXPECT_EQ(s.status, 0);
  std::size_t rows = 0;
  for (const auto& line : asmevo::test::split_lines(s.out)) {
    auto lb = line.find('['), rb = line.find(']');
    if (lb == std::string::npos || rb == std::string::npos || line.find("Nr]") != std::string::npos) continue;
    const auto idx = num(line.substr(lb + 1, rb - lb - 1), 10);
    auto w = words(line.substr(rb + 1));
    // name (absent for section 0), type (one or more words), 16-digit address, offset, size, ES, [Flg], Lk, Inf, Al
    std::size_t a = 0;
    while (a < w.size() && !(w[a].size() == 16 && w[a].find_first_not_of("0123456789abcdef") == std::string::npos)) ++a;
    ASSERT_LT(a + 6, w.size() + 1) << line;
    ASSERT_LT(idx, f->sections().size()) << line;
    const Section& sec = f->sections()[idx];
    std::string name = idx == 0 ? "" : w[0];
    std::string type;
    for (std::size_t i = idx == 0 ? 0 : 1; i < a; ++i) type += (type.empty() ? "" : " ") + w[i];
    EXPECT_EQ(sec.index, idx);
    EXPECT_EQ(sec.name, name) << line;
    EXPECT_EQ(section_type_name(sec.type), type) << line;
    EXPECT_EQ(sec.addr, num(w[a], 16)) << line;
    EXPECT_EQ(sec.offset, num(w[a + 1], 16)) << line;
    EXPECT_EQ(sec.size, num(w[a + 2], 16)) << line;
    EXPECT_EQ(sec.entsize, num(w[a + 3], 16)) << line;
    const std::size_t rest = w.size() - (a + 4);
    ASSERT_TRUE(rest == 3 || rest == 4) << line;
    EXPECT_EQ(flag_letters(sec.flags), rest == 4 ? w[a + 4] : "") << line;
    EXPECT_EQ(sec.link, num(w[w.size() - 3], 10)) << line;
    EXPECT_EQ(sec.info, num(w[w.size() - 2], 10)) << line;
    EXPECT_EQ(sec.addralign, num(w[w.size() - 1], 10)) << line;
    if (sec.type != elf::sht_nobits) EXPECT_EQ(f->data(sec).size(), sec.size);
    else EXPECT_TRUE(f->data(sec).empty());
    EXPECT_EQ(f->find_section(sec.name) != nullptr, idx != 0 && !sec.name.empty());
    ++rows;
  }
  EXPECT_EQ(rows, f->sections().size());
  checked += rows;

  // Symbols of both tables.
  auto y = readelf("-s --dyn-syms -W", path);
  EXPECT_EQ(y.status, 0);
  const std::vector<Symbol>* table = nullptr;
  std::map<std::string, std::size_t> seen;
  for (const auto& line : asmevo::test::split_lines(y.out)) {
    if (starts_with(line, "Symbol table '")) {
      const std::string tname = line.substr(14, line.find('\'', 14) - 14);
      table = tname == ".dynsym" ? &f->dynamic_symbols() : tname == ".symtab" ? &f->symbols() : nullptr;
      EXPECT_NE(table, nullptr) << line;
      auto contains = line.find(" contains ");
      if (table) EXPECT_EQ(num(line.substr(contains + 10), 10), table->size()) << line;
      seen[tname] = 0;
      continue;
    }
    auto w = words(line);
    if (!table || w.size() < 7 || w[0].back() != ':' || w[0] == "Num:") continue;
    const auto i = num(w[0], 10);
    ASSERT_LT(i, table->size()) << line;
    const Symbol& sym = (*table)[i];
    EXPECT_EQ(sym.index, i);
    EXPECT_EQ(sym.value, num(w[1], 16)) << line;
    EXPECT_EQ(sym.size, num(w[2], 0)) << line;
    EXPECT_EQ(symbol_type_name(sym.type), w[3]) << line;
    EXPECT_EQ(symbol_binding_name(sym.binding), w[4]) << line;
    EXPECT_EQ(symbol_visibility_name(sym.visibility), w[5]) << line;
    const std::string ndx = w[6];
    if (ndx == "UND") EXPECT_EQ(sym.shndx, elf::shn_undef) << line;
    else if (ndx == "ABS") EXPECT_EQ(sym.shndx, elf::shn_abs) << line;
    else if (ndx == "COM") EXPECT_EQ(sym.shndx, elf::shn_common) << line;
    else {
      EXPECT_EQ(sym.shndx, num(ndx, 10)) << line;
      EXPECT_EQ(sym.section_name, f->sections()[sym.shndx].name) << line;
    }
    // readelf shows a section symbol by its section's name.
    const std::string name = w.size() > 7 ? w[7] : "";
    EXPECT_EQ(sym.name.empty() && sym.type == elf::stt_section ? sym.section_name : sym.name, name) << line;
    ++checked;
    for (auto& [k, v] : seen)
      if ((k == ".dynsym" && table == &f->dynamic_symbols()) || (k == ".symtab" && table == &f->symbols())) ++v;
  }
  for (const auto& [k, v] : seen)
    EXPECT_EQ(v, k == ".dynsym" ? f->dynamic_symbols().size() : f->symbols().size()) << k;
  if (!seen.count(".dynsym")) EXPECT_TRUE(f->dynamic_symbols().empty());
  if (!seen.count(".symtab")) EXPECT_TRUE(f->symbols().empty());

  // Program headers.
  auto l = readelf("-l -W", path);
  EXPECT_EQ(l.status, 0);
  std::size_t ph = 0;
  bool in_table = false;
  for (const auto& line : asmevo::test::split_lines(l.out)) {
    if (line.find("Type") != std::string::npos && line.find("Offset") != std::string::npos) { in_table = true; continue; }
    if (line.find("Section to Segment") != std::string::npos) in_table = false;
    auto w = words(line);
    if (!in_table || w.size() < 8 || !starts_with(w[1], "0x")) continue;
    ASSERT_LT(ph, f->program_headers().size()) << line;
    const ProgramHeader& p = f->program_headers()[ph];
    EXPECT_EQ(segment_type_name(p.type), w[0]) << line;
    EXPECT_EQ(p.offset, num(w[1], 16)) << line;
    EXPECT_EQ(p.vaddr, num(w[2], 16)) << line;
    EXPECT_EQ(p.paddr, num(w[3], 16)) << line;
    EXPECT_EQ(p.filesz, num(w[4], 16)) << line;
    EXPECT_EQ(p.memsz, num(w[5], 16)) << line;
    std::string flg;
    for (std::size_t i = 6; i + 1 < w.size(); ++i) flg += w[i];
    std::string mine = std::string(p.flags & elf::pf_r ? "R" : "") + (p.flags & elf::pf_w ? "W" : "") +
                       (p.flags & elf::pf_x ? "E" : "");
    EXPECT_EQ(mine, flg) << line;
    EXPECT_EQ(p.align, num(w.back(), 16)) << line;
    ++ph;
  }
  EXPECT_EQ(ph, f->program_headers().size());
  checked += ph;

  // Notes: owner, size and type, section by section.
  auto n = readelf("--notes -W", path);
  EXPECT_EQ(n.status, 0);
  const auto notes = f->notes();
  std::size_t ni = 0;
  std::string section;
  for (const auto& line : asmevo::test::split_lines(n.out)) {
    if (starts_with(line, "Displaying notes found in: ")) { section = line.substr(27); continue; }
    auto w = words(line);
    if (w.size() < 3 || w[0] == "Owner" || !starts_with(w[1], "0x") || line.rfind("  ", 0) != 0) continue;
    ASSERT_LT(ni, notes.size()) << line;
    const Note& note = notes[ni];
    EXPECT_EQ(note.name, w[0]) << line;
    EXPECT_EQ(note.desc.size(), num(w[1], 16)) << line;
    EXPECT_EQ(f->sections()[note.section].name, section) << line;
    if (note.name == "AMDGPU" && note.type == elf::nt_amdgpu_metadata) EXPECT_EQ(w[2], "NT_AMDGPU_METADATA") << line;
    EXPECT_EQ(note.desc.data(), f->bytes().data() + note.desc_offset);
    ++ni;
  }
  EXPECT_EQ(ni, notes.size());
  checked += ni;
}

std::size_t compare_with_readelf(const fs::path& path) {
  std::size_t checked = 0;
  compare_with_readelf(path, checked);
  return checked;
}

/// Assembles `source` with llvm-mc-22 into `out`; returns llvm-mc's status (0 = success).
int assemble(const std::string& source, const fs::path& out, const std::string& mcpu, const std::string& mattr = {}) {
  const fs::path src = out.string() + ".s";
  {
    std::ofstream o(src);
    o << source;
  }
  std::string cmd = std::string(ASMEVO_LLVM_MC) + " -triple amdgcn-amd-amdhsa -mcpu=" + mcpu +
                    (mattr.empty() ? "" : " -mattr=" + mattr) + " -filetype=obj " + quote(src) + " -o " + quote(out);
  return run(cmd).status;
}

// A kernel with a descriptor and metadata; {TARGET} is the target id, {V} the code object version.
const char* const kernel_source = R"(.amdgcn_target "amdgcn-amd-amdhsa--{TARGET}"
.amdhsa_code_object_version {V}
.text
.globl k
.p2align 8
.type k,@function
k:
  s_load_dwordx2 s[0:1], s[4:5], 0x0
  s_waitcnt lgkmcnt(0)
  s_endpgm
.rodata
.p2align 6
.amdhsa_kernel k
  .amdhsa_next_free_vgpr 1
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 4
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
.end_amdhsa_kernel
.amdgpu_metadata
---
amdhsa.kernels:
  - .name: k
    .symbol: k.kd
    .args:
      - .name: out
        .offset: 0
        .size: 8
        .value_kind: global_buffer
        .address_space: global
    .kernarg_segment_size: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .wavefront_size: 64
    .sgpr_count: 8
    .vgpr_count: 1
    .max_flat_workgroup_size: 256
amdhsa.target: amdgcn-amd-amdhsa--{TARGET}
amdhsa.version: [1, {MINOR}]
...
.end_amdgpu_metadata
)";

std::string kernel_text(const std::string& target_id, unsigned version) {
  std::string s = kernel_source;
  auto rep = [&](const std::string& from, const std::string& to) {
    for (auto p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
  };
  rep("{TARGET}", target_id);
  rep("{V}", std::to_string(version));
  rep("{MINOR}", std::to_string(version - 3));
  return s;
}

/// A linked shared object made here (the base for the malformed-input tests).
const std::vector<std::uint8_t>& shared_object() {
  static const std::vector<std::uint8_t> bytes = [] {
    const fs::path o = scratch() / "base.o", so = scratch() / "base.so";
    std::vector<std::uint8_t> b;
    if (assemble(kernel_text("gfx942:sramecc+:xnack-", 5), o, "gfx942", "+sramecc,-xnack") != 0) return b;
    if (run(std::string(ASMEVO_LD_LLD) + " -shared " + quote(o) + " -o " + quote(so)).status != 0) return b;
    return bytes_of(so);
  }();
  return bytes;
}

// ----------------------------------------------------------------------------------------------------------------

TEST(ElfCorpus, EveryObjectAgreesWithReadelf) {
  ASMEVO_REQUIRE_CORPUS(dir);
  const auto files = asmevo::test::code_objects(dir);
  ASSERT_FALSE(files.empty()) << "no code objects under " << dir;
  prefetch_readelf(files, {"-h", "-S -W", "-s --dyn-syms -W", "-l -W", "--notes -W", "-r"});
  std::size_t facts = 0;
  std::map<std::string, int> by_target;
  for (const auto& p : files) {
    facts += compare_with_readelf(p);
    auto f = ElfFile::read(p);
    ASSERT_TRUE(f.has_value());
    EXPECT_EQ(f->e_machine(), elf::em_amdgpu);
    ++by_target[f->target_id() + " v" + std::to_string(f->code_object_version())];
    // The asmevo target matches the processor name wherever it is one of asmevo's.
    if (auto t = f->target()) EXPECT_EQ(std::string(to_string(*t)), f->target_info().processor);
    else EXPECT_TRUE(f->target_info().processor != "gfx90a" && f->target_info().processor != "gfx942" &&
                     f->target_info().processor != "gfx950");
    // Shared objects in the corpus carry no relocations (llvm-readelf -r agrees: no relocation sections).
    EXPECT_EQ(readelf("-r", p).out.find("Relocation section"),
              std::string::npos);
    EXPECT_TRUE(f->relocations().empty());
  }
  std::string summary;
  for (const auto& [k, v] : by_target) summary += k + ": " + std::to_string(v) + "  ";
  std::cout << "[ corpus   ] " << files.size() << " objects, " << facts << " facts checked against llvm-readelf-22; "
            << summary << "\n";
}

TEST(ElfSelfMade, SharedObjectFromLldAgreesWithReadelf) {
  const auto& b = shared_object();
  ASSERT_FALSE(b.empty()) << "llvm-mc-22 / ld.lld-22 failed to build the test object";
  const fs::path p = scratch() / "base.so";
  EXPECT_GT(compare_with_readelf(p), 30u);
  auto f = ElfFile::parse(b, "base.so");
  ASSERT_TRUE(f.has_value());
  EXPECT_TRUE(f->is_shared_object());
  EXPECT_EQ(f->code_object_version(), 5u);
  EXPECT_EQ(f->target_id(), "gfx942:sramecc+:xnack-");
  EXPECT_EQ(f->target(), Target::gfx942);
  EXPECT_EQ(f->target_info().xnack, FeatureSetting::off);
  EXPECT_EQ(f->target_info().sramecc, FeatureSetting::on);
  ASSERT_NE(f->find_symbol("k.kd"), nullptr);
  EXPECT_EQ(f->find_symbol("k.kd")->size, 64u);  // a kernel descriptor is 64 bytes
  EXPECT_EQ(f->find_symbol("k.kd")->section_name, ".rodata");
}

TEST(ElfSelfMade, TargetIdsAndVersionsForEveryTarget) {
  // Each target, feature spelling and code object version, as llvm-mc-22 writes them, read back by ElfFile
  // and by llvm-readelf-22; the target id must be accepted again by .amdgcn_target.
  struct Case {
    std::string mcpu, mattr, target_id;
    unsigned version;
    std::optional<Target> target;
  };
  const Case cases[] = {
      {"gfx90a", "", "gfx90a", 4, Target::gfx90a},
      {"gfx90a", "+xnack", "gfx90a:xnack+", 5, Target::gfx90a},
      {"gfx942", "", "gfx942", 6, Target::gfx942},
      {"gfx942", "-sramecc,+xnack", "gfx942:sramecc-:xnack+", 6, Target::gfx942},
      {"gfx950", "+sramecc", "gfx950:sramecc+", 5, Target::gfx950},
      {"gfx908", "", "gfx908", 4, std::nullopt},
      {"gfx900", "", "gfx900", 4, std::nullopt},
      {"gfx9-generic", "", "gfx9-generic", 6, std::nullopt},
      {"gfx9-4-generic", "+sramecc,-xnack", "gfx9-4-generic:sramecc+:xnack-", 6, std::nullopt},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.target_id + " v" + std::to_string(c.version));
    const fs::path o = scratch() / ("t_" + c.mcpu + "_" + std::to_string(c.version) + ".o");
    const std::string src = ".amdgcn_target \"amdgcn-amd-amdhsa--" + c.target_id + "\"\n.amdhsa_code_object_version " +
                            std::to_string(c.version) + "\n.text\ns_endpgm\n";
    ASSERT_EQ(assemble(src, o, c.mcpu, c.mattr), 0);
    compare_with_readelf(o);
    auto f = ElfFile::read(o);
    ASSERT_TRUE(f.has_value()) << f.error().str();
    EXPECT_TRUE(f->is_relocatable());
    EXPECT_EQ(f->code_object_version(), c.version);
    EXPECT_EQ(f->target_id(), c.target_id);
    EXPECT_EQ(f->target(), c.target);
    // The spelling is LLVM's: llvm-mc accepts it back in .amdgcn_target.
    const std::string again = ".amdgcn_target \"amdgcn-amd-amdhsa--" + f->target_id() +
                              "\"\n.amdhsa_code_object_version " + std::to_string(c.version) + "\n";
    EXPECT_EQ(assemble(again, scratch() / "again.o", c.mcpu, c.mattr), 0);
  }
}

TEST(ElfSelfMade, RelocationsAgreeWithReadelf) {
  const std::string src = R"(.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.amdhsa_code_object_version 6
.text
.globl k
.p2align 8
.type k,@function
k:
  s_getpc_b64 s[0:1]
  s_add_u32 s0, s0, ext@rel32@lo+4
  s_addc_u32 s1, s1, ext@rel32@hi+12
  s_add_u32 s0, s0, local_data@rel32@lo-8
  s_addc_u32 s1, s1, local_data@rel32@hi-4
  s_mov_b32 s2, ext@abs32@lo
  s_mov_b32 s3, ext@abs32@hi
  s_getpc_b64 s[4:5]
  s_add_u32 s4, s4, ext@gotpcrel32@lo+4
  s_addc_u32 s5, s5, ext@gotpcrel32@hi+12
  s_endpgm
.data
.p2align 3
local_data:
  .quad ext
  .quad k + 16
  .long ext
  .long local_data - 4
)";
  const fs::path o = scratch() / "relocs.o";
  ASSERT_EQ(assemble(src, o, "gfx942"), 0);
  compare_with_readelf(o);
  auto f = ElfFile::read(o);
  ASSERT_TRUE(f.has_value()) << f.error().str();
  auto r = run(std::string(ASMEVO_LLVM_READELF) + " -r -W " + quote(o));
  ASSERT_EQ(r.status, 0);
  std::size_t i = 0;
  std::string section;
  for (const auto& line : asmevo::test::split_lines(r.out)) {
    if (starts_with(line, "Relocation section '")) {
      section = line.substr(20, line.find('\'', 20) - 20);
      continue;
    }
    auto w = words(line);
    if (w.size() < 5 || w[0].size() != 16 || w[0].find_first_not_of("0123456789abcdef") != std::string::npos) continue;
    ASSERT_LT(i, f->relocations().size()) << line;
    const Relocation& rel = f->relocations()[i];
    EXPECT_EQ(f->sections()[rel.section].name, section) << line;
    EXPECT_EQ(".rela" + f->sections()[rel.target_section].name, section) << line;
    EXPECT_EQ(rel.offset, num(w[0], 16)) << line;
    EXPECT_EQ(rel.info, num(w[1], 16)) << line;
    EXPECT_EQ(relocation_type_name(rel.type), w[2]) << line;
    // "<value> <name> + <hex addend>" or "<name> - <hex>"
    ASSERT_GE(w.size(), 7u) << line;
    EXPECT_EQ(rel.symbol_name, w[4]) << line;
    const auto mag = static_cast<std::int64_t>(num(w[6], 16));
    EXPECT_EQ(rel.addend, w[5] == "-" ? -mag : mag) << line;
    EXPECT_TRUE(rel.has_addend);
    ++i;
  }
  EXPECT_EQ(i, f->relocations().size());
  EXPECT_EQ(i, 12u) << "the source has 8 relocations in .text and 4 in .data";
}

TEST(ElfPatch, ReplaceSectionBytes) {
  const auto& b = shared_object();
  ASSERT_FALSE(b.empty());
  auto f = ElfFile::parse(b, "base.so");
  ASSERT_TRUE(f.has_value());
  const Section* text = f->find_section(".text");
  ASSERT_NE(text, nullptr);
  std::vector<std::uint8_t> patched(text->size, 0);
  for (std::size_t i = 0; i < patched.size(); ++i) patched[i] = static_cast<std::uint8_t>(i * 7);
  auto out = replace_section_bytes(*f, ".text", patched);
  ASSERT_TRUE(out.has_value()) << out.error().str();
  ASSERT_EQ(out->size(), b.size());
  auto g = ElfFile::parse(*out, "patched.so");
  ASSERT_TRUE(g.has_value());
  auto d = g->data(*g->find_section(".text"));
  EXPECT_TRUE(std::equal(d.begin(), d.end(), patched.begin(), patched.end()));
  // Everything outside .text is unchanged.
  for (std::size_t i = 0; i < b.size(); ++i)
    if (i < text->offset || i >= text->offset + text->size) ASSERT_EQ((*out)[i], b[i]) << "byte " << i;
  // The disassembler sees the new bytes where the old ones were (an outside reader of the written file).
  const fs::path p = scratch() / "patched.so";
  {
    std::ofstream o(p, std::ios::binary);
    o.write(reinterpret_cast<const char*>(out->data()), static_cast<std::streamsize>(out->size()));
  }
  compare_with_readelf(p);

  std::vector<std::uint8_t> shorter(text->size - 4, 0);
  auto bad = replace_section_bytes(*f, ".text", shorter);
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message.find("bytes; the replacement is"), std::string::npos) << bad.error().message;
  auto missing = replace_section_bytes(*f, ".nope", patched);
  ASSERT_FALSE(missing.has_value());
  EXPECT_NE(missing.error().message.find("no section named .nope"), std::string::npos);
  auto nobits = replace_section_bytes(*f, ".relro_padding", {});
  ASSERT_FALSE(nobits.has_value());
  EXPECT_NE(nobits.error().message.find("SHT_NOBITS"), std::string::npos);
}

// ----------------------------------------------------------------------------------------------------------------
// Malformed input: each gives a Diag naming the problem.

template <class T>
void put(std::vector<std::uint8_t>& b, std::uint64_t off, T v) {
  for (std::size_t i = 0; i < sizeof(T); ++i) b[off + i] = static_cast<std::uint8_t>(static_cast<std::uint64_t>(v) >> (8 * i));
}

std::string parse_error(const std::vector<std::uint8_t>& b) {
  auto f = ElfFile::parse(b, "bad.co");
  if (f) return "(parsed)";
  EXPECT_EQ(f.error().code, DiagCode::object_error);
  EXPECT_EQ(f.error().loc.file, "bad.co");
  return f.error().message;
}

#define EXPECT_HAS(hay, needle) EXPECT_NE((hay).find(needle), std::string::npos) << "message: " << (hay)

TEST(ElfBadInput, TruncatedAtEveryOffset) {
  const auto& b = shared_object();
  ASSERT_FALSE(b.empty());
  auto f = ElfFile::parse(b);
  ASSERT_TRUE(f.has_value());
  // lld puts the section header table last, so every truncation loses part of it (or more).
  ASSERT_EQ(f->header().shoff + f->sections().size() * 64, b.size());
  for (std::size_t cut = 0; cut < b.size(); ++cut) {
    std::vector<std::uint8_t> t(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(cut));
    const std::string m = parse_error(t);
    SCOPED_TRACE("cut at " + std::to_string(cut));
    if (cut < 4) EXPECT_HAS(m, "not an ELF file");
    else if (cut < 64) EXPECT_HAS(m, "truncated ELF header");
    else EXPECT_HAS(m, "past the end of the file (" + codeobject::detail::to_hex(cut) + " bytes)");
  }
}

TEST(ElfBadInput, HeaderFields) {
  const auto& base = shared_object();
  ASSERT_FALSE(base.empty());
  auto b = base;
  b[0] = 'x';
  EXPECT_HAS(parse_error(b), "not an ELF file");
  b = base;
  b[4] = elf::elfclass32;
  EXPECT_HAS(parse_error(b), "ELF32");
  b = base;
  b[5] = elf::elfdata2msb;
  EXPECT_HAS(parse_error(b), "big-endian");
  b = base;
  put<std::uint16_t>(b, 18, 62);  // EM_X86_64
  EXPECT_HAS(parse_error(b), "not an AMDGPU object: e_machine is 62");
  b = base;
  b[7] = elf::elfosabi_amdgpu_pal;
  EXPECT_HAS(parse_error(b), "not an HSA code object: OS ABI (e_ident[EI_OSABI]) is 65 (AMDGPU PAL)");
  b = base;
  b[8] = elf::abiversion_hsa_v3;
  EXPECT_HAS(parse_error(b), "unsupported code object version 3");
  b = base;
  b[8] = elf::abiversion_hsa_v2;
  EXPECT_HAS(parse_error(b), "unsupported code object version 2");
  b = base;
  b[8] = 9;
  EXPECT_HAS(parse_error(b), "unsupported code object version: unknown ABI version 9");
  b = base;
  put<std::uint16_t>(b, 16, elf::et_exec);
  EXPECT_HAS(parse_error(b), "unsupported ELF type 2");
  b = base;
  put<std::uint64_t>(b, 40, base.size() + 100);  // e_shoff past EOF
  EXPECT_HAS(parse_error(b), "the section header table at e_shoff " + codeobject::detail::to_hex(base.size() + 100));
  b = base;
  put<std::uint64_t>(b, 40, ~std::uint64_t{0} - 63);  // e_shoff + size overflows
  EXPECT_HAS(parse_error(b), "is past the end of the file");
  b = base;
  put<std::uint16_t>(b, 60, 0xfff0);  // e_shnum huge
  EXPECT_HAS(parse_error(b), "(65520 entries of 64 bytes) is past the end of the file");
  b = base;
  put<std::uint16_t>(b, 58, 40);  // e_shentsize
  EXPECT_HAS(parse_error(b), "e_shentsize is 40, expected 64");
  b = base;
  put<std::uint16_t>(b, 62, 999);  // e_shstrndx out of range
  EXPECT_HAS(parse_error(b), "e_shstrndx 999 is out of range (14 sections)");
  b = base;
  put<std::uint64_t>(b, 32, base.size() - 8);  // e_phoff
  EXPECT_HAS(parse_error(b), "the program header table at e_phoff");
  b = base;
  put<std::uint16_t>(b, 56, 0xfffe);  // e_phnum huge
  EXPECT_HAS(parse_error(b), "(65534 entries of 56 bytes) is past the end of the file");
}

TEST(ElfBadInput, ExtendedSectionCount) {
  const auto& base = shared_object();
  ASSERT_FALSE(base.empty());
  auto f = ElfFile::parse(base);
  ASSERT_TRUE(f.has_value());
  const auto shoff = f->header().shoff;
  // e_shnum 0 moves the count to section 0's sh_size (gABI extended numbering): the real count parses ...
  auto b = base;
  put<std::uint16_t>(b, 60, 0);
  put<std::uint64_t>(b, shoff + 32, f->sections().size());
  auto g = ElfFile::parse(b);
  ASSERT_TRUE(g.has_value()) << g.error().str();
  EXPECT_EQ(g->sections().size(), f->sections().size());
  // ... and a huge one is refused before anything is allocated.
  put<std::uint64_t>(b, shoff + 32, std::uint64_t{1} << 40);
  EXPECT_HAS(parse_error(b), "the section count 1099511627776 is over the limit");
}

TEST(ElfBadInput, SectionTableEntries) {
  const auto& base = shared_object();
  ASSERT_FALSE(base.empty());
  auto f = ElfFile::parse(base);
  ASSERT_TRUE(f.has_value());
  const auto shoff = f->header().shoff;
  auto field = [&](std::string_view name, std::uint64_t at) {
    const Section* s = f->find_section(name);
    EXPECT_NE(s, nullptr) << name;
    return shoff + s->index * 64 + at;
  };
  const auto text_index = f->find_section(".text")->index;
  const std::string text = "section " + std::to_string(text_index) + " (.text)";

  auto b = base;
  put<std::uint32_t>(b, field(".text", 0), 0x7fffffff);  // sh_name out of range
  EXPECT_HAS(parse_error(b), "section " + std::to_string(text_index) + ": name offset 0x7fffffff is outside the string table");
  b = base;
  put<std::uint64_t>(b, field(".text", 32), 0x100000);  // sh_size past EOF
  EXPECT_HAS(parse_error(b), text + ": offset " + codeobject::detail::to_hex(f->find_section(".text")->offset) +
                                 " + size 0x100000 is past the end of the file (" + codeobject::detail::to_hex(base.size()) + " bytes)");
  b = base;
  put<std::uint64_t>(b, field(".text", 24), ~std::uint64_t{0} - 4);  // offset + size overflows
  EXPECT_HAS(parse_error(b), text + ": offset 0xfffffffffffffffb + size");
  b = base;
  put<std::uint64_t>(b, field(".dynsym", 56), 0);  // entsize 0: never divided by
  EXPECT_HAS(parse_error(b), "(.dynsym): entry size is 0, expected 24");
  b = base;
  put<std::uint64_t>(b, field(".symtab", 32), 25);  // size not a multiple of 24
  EXPECT_HAS(parse_error(b), "(.symtab): size 0x19 is not a multiple of the entry size 24");
  b = base;
  put<std::uint32_t>(b, field(".symtab", 40), 99);  // sh_link out of range
  EXPECT_HAS(parse_error(b), "(.symtab): sh_link 99 does not name its string table");
  b = base;
  {
    const Section* sym = f->find_section(".symtab");
    put<std::uint32_t>(b, sym->offset + 24, 0x12345);  // symbol 1's st_name
  }
  EXPECT_HAS(parse_error(b), "symbol 1 of section " + std::to_string(f->find_section(".symtab")->index) +
                                 " (.symtab): name offset 0x12345 is outside the string table");
  b = base;
  {
    const Section* sym = f->find_section(".dynsym");
    put<std::uint16_t>(b, sym->offset + 24 + 6, 500);  // symbol 1's st_shndx
  }
  EXPECT_HAS(parse_error(b), "section index 500 is out of range (14 sections)");
  b = base;
  put<std::uint64_t>(b, field(".note", 48), 16);  // note alignment
  EXPECT_HAS(parse_error(b), "(.note): note alignment 16 is not 4 or 8");
  b = base;
  put<std::uint64_t>(b, field(".text", 48), 3);  // alignment not a power of two
  EXPECT_HAS(parse_error(b), text + ": alignment 0x3 is not a power of two");
}

TEST(ElfBadInput, Notes) {
  const auto& base = shared_object();
  ASSERT_FALSE(base.empty());
  auto f = ElfFile::parse(base);
  ASSERT_TRUE(f.has_value());
  const Section* note = f->find_section(".note");
  ASSERT_NE(note, nullptr);
  const std::string where = "note at offset " + codeobject::detail::to_hex(note->offset) + " in section " +
                            std::to_string(note->index) + " (.note)";
  auto b = base;
  put<std::uint32_t>(b, note->offset, 0xfffffff0);  // namesz
  EXPECT_HAS(parse_error(b), where + ": name size 0xfffffff0 runs past the end of the section");
  b = base;
  put<std::uint32_t>(b, note->offset + 4, 0xffffffff);  // descsz: 32-bit sums must not wrap
  EXPECT_HAS(parse_error(b), where + " (AMDGPU): descriptor size 0xffffffff runs past the end of the section");
  b = base;
  put<std::uint64_t>(b, f->header().shoff + note->index * 64 + 32, 7);  // section ends inside the header
  EXPECT_HAS(parse_error(b), where + ": truncated note header (7 bytes left, 12 needed)");
  // A note with its padding cut off at the section's end is still read (producers differ there).
  b = base;
  const auto notes = f->notes();
  ASSERT_EQ(notes.size(), 1u);
  const auto exact = notes[0].desc_offset + notes[0].desc.size() - note->offset;
  put<std::uint64_t>(b, f->header().shoff + note->index * 64 + 32, exact);
  auto g = ElfFile::parse(b);
  ASSERT_TRUE(g.has_value()) << g.error().str();
  EXPECT_EQ(g->notes().size(), 1u);
}

TEST(ElfBadInput, Relocations) {
  const fs::path o = scratch() / "relocs_bad.o";
  ASSERT_EQ(assemble(".text\ns_mov_b32 s0, ext@abs32@lo\n.data\n.quad ext\n", o, "gfx942"), 0);
  const auto base = bytes_of(o);
  auto f = ElfFile::parse(base);
  ASSERT_TRUE(f.has_value()) << f.error().str();
  ASSERT_FALSE(f->relocations().empty());
  const Section* rela = f->find_section(".rela.text");
  ASSERT_NE(rela, nullptr);
  auto b = base;
  put<std::uint64_t>(b, rela->offset + 8, (std::uint64_t{4000} << 32) | 1);  // r_info symbol index
  EXPECT_HAS(parse_error(b), "relocation 0 of section " + std::to_string(rela->index) +
                                 " (.rela.text): symbol index 4000 is out of range");
  b = base;
  put<std::uint32_t>(b, f->header().shoff + rela->index * 64 + 44, 77);  // sh_info
  EXPECT_HAS(parse_error(b), "(.rela.text): sh_info 77 (the section it applies to) is out of range");
  b = base;
  put<std::uint64_t>(b, f->header().shoff + rela->index * 64 + 56, 16);  // entsize of a RELA table
  EXPECT_HAS(parse_error(b), "(.rela.text): entry size is 16, expected 24");
}

TEST(ElfBadInput, RandomByteFlipsNeverCrash) {
  // Not a fuzzer (tests/fuzz/codeobject_fuzz.cpp is), but every flip of every header and section-table byte must
  // give either a file or a Diag.
  const auto& base = shared_object();
  ASSERT_FALSE(base.empty());
  auto f = ElfFile::parse(base);
  ASSERT_TRUE(f.has_value());
  std::vector<std::uint64_t> offsets;
  for (std::uint64_t i = 0; i < 64; ++i) offsets.push_back(i);
  for (std::uint64_t i = f->header().shoff; i < base.size(); ++i) offsets.push_back(i);
  std::size_t parsed = 0, refused = 0;
  for (auto off : offsets)
    for (std::uint8_t x : {0x01, 0x80, 0xff}) {
      auto b = base;
      b[off] ^= x;
      auto g = ElfFile::parse(std::move(b));
      if (g) {
        ++parsed;
        (void)g->notes();
      } else {
        ++refused;
        EXPECT_FALSE(g.error().message.empty());
      }
    }
  EXPECT_GT(refused, 0u);
  EXPECT_GT(parsed, 0u);
}

}  // namespace
