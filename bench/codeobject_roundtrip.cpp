// Benchmark: recover + rebuild of every code object in the corpus, in-process (asmevo: ELF read, decode to IR,
// print, parse, LLVM MC in-process, ld.lld), beside the external pipeline a user would otherwise script
// (llvm-objdump-22 -d, llvm-mc-22 -filetype=obj, ld.lld-22 -shared), measured in the same run, as a ratio.
// Not a test: it prints a table. Usage: codeobject_roundtrip [--corpus DIR] [--repeat N]
//
// The external pipeline is given its best case: llvm-mc-22 assembles asmevo's own reassemblable `.s` (what
// objdump prints does not reassemble: branch targets are labels objdump invents, no descriptors, no metadata),
// so its time is a lower bound on what such a script costs.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "asmevo/codeobject/compare.hpp"
#include "asmevo/codeobject/module.hpp"
#include "asmevo/codeobject/rebuild.hpp"
#include "asmevo/codeobject/recover.hpp"
#include "asmevo/ir/parser.hpp"
#include "support/corpus.hpp"

namespace {

using namespace asmevo;
using namespace asmevo::codeobject;
using clk = std::chrono::steady_clock;
namespace fs = std::filesystem;

template <class F>
double best_of(int n, F&& f) {
  double best = 1e30;
  for (int i = 0; i < n; ++i) {
    const auto t0 = clk::now();
    if (!f()) return -1;
    best = std::min(best, std::chrono::duration<double>(clk::now() - t0).count());
  }
  return best;
}

bool run(const std::string& cmd) { return std::system((cmd + " >/dev/null 2>&1").c_str()) == 0; }

}  // namespace

int main(int argc, char** argv) {
  fs::path corpus;
  int repeat = 3;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--corpus" && i + 1 < argc) corpus = argv[++i];
    else if (a == "--repeat" && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i]));
    else {
      std::fprintf(stderr, "usage: codeobject_roundtrip [--corpus DIR] [--repeat N]\n");
      return 2;
    }
  }
  if (corpus.empty()) {
    auto c = test::corpus_dir();
    if (!c) {
      std::fprintf(stderr, "corpus not found: set ASMEVO_CORPUS_DIR or pass --corpus DIR\n");
      return 2;
    }
    corpus = *c;
  }
  const std::vector<fs::path> files = test::code_objects(corpus);
  std::string tmpl = (fs::temp_directory_path() / "asmevo-bench-XXXXXX").string();
  const fs::path tmp = ::mkdtemp(tmpl.data());

  std::printf("recover + rebuild per code object, best of %d runs (ms); external = llvm-objdump-22 -d + llvm-mc-22 + ld.lld-22\n\n", repeat);
  std::printf("%-58s %7s %10s %10s %7s %s\n", "object", "insts", "asmevo", "external", "ratio", "identical");
  double total_a = 0, total_e = 0;
  std::size_t n = 0, skipped = 0;
  for (const auto& f : files) {
    auto elf0 = ElfFile::read(f);
    if (!elf0 || !elf0->target()) {
      ++skipped;
      continue;
    }
    auto enc = encoder_for(*elf0);
    if (!enc) return 3;
    std::size_t insts = 0;
    bool identical = false;
    std::string text;
    const double ta = best_of(repeat, [&] {
      auto elf = ElfFile::read(f);
      if (!elf) return false;
      auto m = recover(*elf, **enc);
      if (!m) return false;
      text = print_module(*m);
      auto p = parse_program(text, m->target, f.string());
      if (!p) return false;
      RebuildOptions opt;
      opt.allow_patch = false;
      auto r = rebuild(std::move(*p), **enc, opt);
      if (!r) return false;
      insts = m->program.instruction_count();
      auto k1 = ElfFile::parse(std::move(r->bytes), "k1");
      identical = k1 && compare_objects(*elf, *k1).identical();
      return true;
    });
    if (ta < 0) {
      std::printf("%-58s asmevo failed\n", f.lexically_relative(corpus).string().c_str());
      continue;
    }
    const fs::path s = tmp / "k.s", o = tmp / "k.o", co = tmp / "k.co", dis = tmp / "k.dis";
    { std::ofstream(s) << text; }
    const std::string mcpu = to_string(*elf0->target()).data();
    const double te = best_of(repeat, [&] {
      return run(std::string(ASMEVO_LLVM_OBJDUMP) + " -d '" + f.string() + "' > '" + dis.string() + "'") &&
             run(std::string(ASMEVO_LLVM_MC) + " -triple=amdgcn-amd-amdhsa -mcpu=" + mcpu + " -filetype=obj '" + s.string() +
                 "' -o '" + o.string() + "'") &&
             run(std::string(ASMEVO_LLD) + " -m elf64_amdgpu --no-undefined -shared '" + o.string() + "' -o '" + co.string() + "'");
    });
    if (te < 0) {
      std::printf("%-58s external pipeline failed\n", f.lexically_relative(corpus).string().c_str());
      continue;
    }
    std::printf("%-58s %7zu %10.1f %10.1f %7.2f %s\n", f.lexically_relative(corpus).string().c_str(), insts, ta * 1e3, te * 1e3,
                te / ta, identical ? "yes" : "NO");
    total_a += ta;
    total_e += te;
    ++n;
  }
  std::printf("\n%zu objects (%zu skipped: processor outside gfx90a/gfx942/gfx950): asmevo %.1f ms, external %.1f ms, "
              "external / asmevo = %.2f\n",
              n, skipped, total_a * 1e3, total_e * 1e3, total_a > 0 ? total_e / total_a : 0.0);
  std::error_code ec;
  fs::remove_all(tmp, ec);
  return 0;
}
