// Benchmark: asmevo's parse+print and parse+encode throughput on the whole shared corpus, beside llvm-mc-22
// on the same text in the same run (a separate process, and LLVM's assembler in-process), as ratios.
// Not a test: it prints a table. Usage: asm_throughput [--corpus DIR] [--repeat N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "asmevo/ir/parser.hpp"
#include "asmevo/ir/preprocess.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/mc/encode.hpp"
#include "asmevo/support/file.hpp"
#include "support/corpus.hpp"
#include "support/objdump.hpp"

namespace {

using namespace asmevo;
using clk = std::chrono::steady_clock;

/// Best of `n` runs, in seconds (the minimum is the least noisy estimate on a shared machine).
template <class F>
double best_of(int n, F&& f) {
  double best = 1e30;
  for (int i = 0; i < n; ++i) {
    const auto t0 = clk::now();
    f();
    best = std::min(best, std::chrono::duration<double>(clk::now() - t0).count());
  }
  return best;
}

struct Workload {
  std::string name;
  Target target;
  std::vector<std::string> texts;  ///< whole files or blocks of instruction lines
  std::size_t lines = 0;
};

/// Runs llvm-mc-22 on a file; a failure ends the benchmark (a ratio against a failed run means nothing).
void run_llvm_mc(const std::string& target, const std::string& file, const char* filetype) {
  const std::string cmd = std::string(ASMEVO_LLVM_MC) + " -triple=amdgcn-amd-amdhsa -mcpu=" + target + " -filetype=" +
                          filetype + " -o /dev/null '" + file + "' 2>/dev/null";
  if (std::system(cmd.c_str()) != 0) {
    std::fprintf(stderr, "asm_throughput: llvm-mc-22 failed on %s (%s)\n", file.c_str(), filetype);
    std::exit(3);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int repeat = 3;
  std::optional<std::filesystem::path> corpus = test::corpus_dir();
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--repeat" && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i]));
    else if (a == "--corpus" && i + 1 < argc) corpus = std::filesystem::path(argv[++i]);
    else { std::fprintf(stderr, "usage: asm_throughput [--corpus DIR] [--repeat N]\n"); return 2; }
  }
  if (!corpus) {
    std::fprintf(stderr, "asm_throughput: no corpus (set ASMEVO_CORPUS_DIR or pass --corpus DIR)\n");
    return 2;
  }
  // Workloads: Triton's .s per target, and the objdump text of every corpus code object per target.
  std::map<std::string, Workload> work;
  for (const char* t : {"gfx90a", "gfx942", "gfx950"}) {
    work[std::string("triton-") + t] = Workload{std::string("triton .s ") + t, *parse_target(t), {}, 0};
    work[std::string("objdump-") + t] = Workload{std::string("objdump ") + t, *parse_target(t), {}, 0};
  }
  // MIOpen's generated kernels, after asmevo's own preprocessing (macros expanded), so both tools read the
  // same plain text.
  for (const char* t : {"gfx90a", "gfx942"})
    work[std::string("miopen-") + t] = Workload{std::string("miopen* ") + t, *parse_target(t), {}, 0};
  for (const auto& p : test::files_with_ext(*corpus / "miopen-igemm-asm", ".s")) {
    PreprocessOptions o;
    o.file = p.string();
    o.include_dirs = {p.parent_path().string()};
    o.keep_definitions = true;
    auto pp = preprocess(test::slurp(p), o);
    if (!pp) { std::fprintf(stderr, "%s\n", pp.error().str().c_str()); return 3; }
    auto& w = work[p.string().find("/gfx90a/") != std::string::npos ? "miopen-gfx90a" : "miopen-gfx942"];
    w.texts.push_back(pp->text());
    w.lines += pp->lines.size();
  }
  for (const auto& p : test::files_with_ext(*corpus / "triton", ".s")) {
    auto& w = work["triton-" + test::target_of_name(p.filename().string())];
    w.texts.push_back(test::slurp(p));
    w.lines += static_cast<std::size_t>(std::count(w.texts.back().begin(), w.texts.back().end(), '\n'));
  }
  std::vector<std::filesystem::path> objs = test::files_with_ext(*corpus, ".co");
  for (auto& p : test::files_with_ext(*corpus, ".hsaco")) objs.push_back(p);
  for (const auto& p : objs) {
    const std::string t = test::target_of_name(p.string());
    if (t.empty()) continue;
    std::vector<test::ObjdumpLine> lines;
    std::string err;
    if (!test::objdump_lines(ASMEVO_LLVM_OBJDUMP, t, p.string(), lines, err)) continue;
    std::string text;
    for (const auto& l : lines) text += "\t" + l.text + "\n";
    auto& w = work["objdump-" + t];
    w.texts.push_back(std::move(text));
    w.lines += lines.size();
  }

  const auto tmp = std::filesystem::temp_directory_path() / ("asmevo_bench_" + std::to_string(::getpid()));
  std::filesystem::create_directories(tmp);
  std::printf("asmevo assembly throughput (best of %d runs; lines per second; ratio = asmevo / peer, >1 = asmevo faster)\n\n",
              repeat);
  std::printf("%-18s %8s | %12s %12s %7s | %12s %12s %7s %12s %7s\n", "workload", "lines", "asmevo p+p", "llvm-mc asm",
              "ratio", "asmevo p+e", "llvm-mc obj", "ratio", "LLVM in-proc", "ratio");
  for (auto& [key, w] : work) {
    if (w.texts.empty()) continue;
    const std::string tname(to_string(w.target));
    // The same text for everyone: one file per input text.
    std::vector<std::string> files;
    for (std::size_t i = 0; i < w.texts.size(); ++i) {
      files.push_back((tmp / (key + "_" + std::to_string(i) + ".s")).string());
      if (!write_file_atomic(files.back(), w.texts[i])) return 3;
    }
    std::size_t sink = 0;
    std::size_t parse_errors = 0;
    const double pp = best_of(repeat, [&] {
      for (const auto& t : w.texts) {
        auto r = parse_program_all(t, w.target);
        parse_errors += r.diags.size();
        sink += print_program(r.program).size();
      }
    });
    if (parse_errors) { std::fprintf(stderr, "asm_throughput: %s: %zu parse errors\n", w.name.c_str(), parse_errors); return 3; }
    auto enc = mc::Encoder::create(w.target);
    if (!enc) { std::fprintf(stderr, "%s\n", enc.error().str().c_str()); return 3; }
    std::size_t enc_fail = 0;
    const double pe = best_of(repeat, [&] {
      for (const auto& t : w.texts) {
        auto r = parse_program_all(t, w.target);
        auto b = (*enc)->encode(r.program);
        enc_fail += !b;
        sink += b ? b->size() : 0;
      }
    });
    const double mc_asm = best_of(repeat, [&] {
      for (const auto& f : files) run_llvm_mc(tname, f, "asm");
    });
    const double mc_obj = best_of(repeat, [&] {
      for (const auto& f : files) run_llvm_mc(tname, f, "obj");
    });
    const double inproc = best_of(repeat, [&] {
      for (const auto& t : w.texts) sink += (*enc)->context().assemble_all(t).instructions.size();
    });
    const double n = static_cast<double>(w.lines);
    std::printf("%-18s %8zu | %12.0f %12.0f %7.2f | %12.0f %12.0f %7.2f %12.0f %7.2f%s\n", w.name.c_str(), w.lines, n / pp,
                n / mc_asm, mc_asm / pp, n / pe, n / mc_obj, mc_obj / pe, n / inproc, inproc / pe,
                "");
    if (enc_fail) { std::fprintf(stderr, "asm_throughput: %s: asmevo failed to encode\n", w.name.c_str()); return 3; }
    (void)sink;
  }
  std::printf("\nmiopen*: after asmevo's macro expansion (both tools read the same plain text).\n"
              "p+p: parse and print (llvm-mc -filetype=asm does the same: parse, then print);\n"
              "p+e: parse and encode (asmevo encodes through LLVM MC in-process, so it also prints and re-parses);\n"
              "llvm-mc columns include process start-up, once per input file; 'LLVM in-proc' is LLVM's assembler\n"
              "alone on the original text inside this process.\n");
  std::error_code ec;
  std::filesystem::remove_all(tmp, ec);
  return 0;
}
