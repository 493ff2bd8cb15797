// Every opcode the corpus uses is emulated: for each code object (Triton, aiter, the Debian blit kernels) and each
// MIOpen assembly source, every instruction's mnemonic must be exact or documented-approximate in the emulator's
// coverage for the object's target — the same table `asmevo emulate --coverage` prints. Objects for targets asmevo
// does not cover (gfx908) are left out by name.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "asmevo/codeobject/module.hpp"
#include "asmevo/emu/coverage.hpp"
#include "asmevo/ir/detail/line_parser.hpp"
#include "asmevo/ir/parser.hpp"
#include "asmevo/ir/preprocess.hpp"
#include "support/corpus.hpp"
#include "verify/corpus_object.hpp"

namespace {

using namespace asmevo;
namespace fs = std::filesystem;

/// Mnemonic -> files that use it, per target.
using Uses = std::map<Target, std::map<std::string, std::set<std::string>>>;

void add_object(Uses& uses, const fs::path& file, const fs::path& root) {
  const auto* obj = emu::test::cached_object(file.string());
  ASSERT_TRUE(obj) << file;
  const Program& p = obj->module.program;
  const auto forms = isa::forms(p.target);
  for (const auto& it : p.items)
    if (it.kind == Item::Kind::inst)
      uses[p.target][std::string(forms[it.inst.form].mnemonic)].insert(fs::relative(file, root).string());
}

void add_source(Uses& uses, const fs::path& file, const fs::path& root) {
  const std::string rel = fs::relative(file, root).string();
  // The MIOpen kernels sit in a folder per target; LLVM 22 reads gfx940 as gfx942 (corpus README).
  const Target t = fs::relative(file, root / "miopen-igemm-asm").string().rfind("gfx90a", 0) == 0 ? Target::gfx90a
                                                                                                 : Target::gfx942;
  PreprocessOptions o;
  o.file = file.string();
  o.include_dirs = {file.parent_path().string()};
  auto pp = preprocess(test::slurp(file), o);
  ASSERT_TRUE(pp) << pp.error().str();
  bool in_metadata = false;  // YAML between .amdgpu_metadata and .end_amdgpu_metadata is not assembly
  const auto forms = isa::forms(t);
  for (const auto& l : pp->lines) {
    const std::string_view text = detail::trim(l.text);
    if (text.rfind(".amdgpu_metadata", 0) == 0) in_metadata = true;
    if (in_metadata) {
      in_metadata = text.rfind(".end_amdgpu_metadata", 0) != 0;
      continue;
    }
    auto syn = detail::parse_line(l.text, l.origin.line);
    ASSERT_TRUE(syn) << l.origin.str() << ": " << syn.error().str();
    if (syn->mnemonic.empty()) continue;
    auto in = parse_inst(l.text, t);
    ASSERT_TRUE(in) << l.origin.str() << ": " << in.error().str();
    uses[t][std::string(forms[in->form].mnemonic)].insert(rel);
  }
}

TEST(CorpusCoverage, EveryCorpusOpcodeIsEmulated) {
  ASMEVO_REQUIRE_CORPUS(corpus);
  Uses uses;
  std::size_t objects = 0, sources = 0;
  for (const char* dir : {"triton", "aiter-co", "debian-rocr-blit-co"})
    for (const auto& f : test::code_objects(corpus / dir)) {
      // gfx908 is not a target of asmevo (recovery refuses it; Roundtrip tests that refusal).
      if (f.filename().string().find("gfx908") != std::string::npos) continue;
      SCOPED_TRACE(f.string());
      add_object(uses, f, corpus);
      ++objects;
    }
  for (const auto& f : test::files_with_ext(corpus / "miopen-igemm-asm", ".s")) {
    SCOPED_TRACE(f.string());
    add_source(uses, f, corpus);
    ++sources;
  }
  EXPECT_GE(objects, 60u) << "corpus code objects found";
  EXPECT_GE(sources, 20u) << "MIOpen sources found";

  for (const auto& [t, mnemonics] : uses) {
    std::map<std::string_view, emu::CoverageRow::Status> status;
    for (const auto& r : emu::coverage(t)) status[r.mnemonic] = r.status;
    std::size_t exact = 0, approx = 0, unsupported = 0;
    for (const auto& [m, files] : mnemonics) {
      const auto it = status.find(m);
      ASSERT_NE(it, status.end()) << m << " is not in the " << to_string(t) << " coverage table";
      switch (it->second) {
        case emu::CoverageRow::Status::exact: ++exact; break;
        case emu::CoverageRow::Status::approximate: ++approx; break;
        case emu::CoverageRow::Status::unsupported:
          ++unsupported;
          ADD_FAILURE() << to_string(t) << ": " << m << " is unsupported; used by " << *files.begin()
                        << (files.size() > 1 ? " and " + std::to_string(files.size() - 1) + " more" : std::string());
          break;
      }
    }
    std::printf("[ coverage ] %s: %zu corpus mnemonics: %zu exact, %zu approximate, %zu unsupported\n",
                std::string(to_string(t)).c_str(), mnemonics.size(), exact, approx, unsupported);
  }
  EXPECT_EQ(uses.size(), 3u) << "gfx90a, gfx942 and gfx950 objects in the corpus";
}

}  // namespace
