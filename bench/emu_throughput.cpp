// Benchmark: emulated wave-instructions per second on the Triton softmax and rms_norm kernels of the corpus,
// single-threaded and then with one host thread per core over workgroups, in adversarial (verification) and
// eager completion modes. Not a test: it prints a table.
// Usage: emu_throughput [--corpus DIR] [--target gfx942|gfx90a] [--repeat N] [--only softmax_f32|rms_norm_f16]
//
// Peer: no other AMDGPU emulator runs on this machine, so the reference is the figure issue 4 quotes for the
// fastest published one: about 5 us per instruction (0.2 M wave-instructions/s). The goal is 10 M/s on one core.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "asmevo/codeobject/module.hpp"
#include "asmevo/codeobject/recover.hpp"
#include "asmevo/emu/launch.hpp"
#include "asmevo/launch/launch_spec.hpp"
#include "support/corpus.hpp"

namespace {

using namespace asmevo;
constexpr double published_rate = 1.0 / 5e-6;  // wave-instructions per second (issue 4)

struct Case {
  const char* stem;
  std::string spec;
};

}  // namespace

int main(int argc, char** argv) {
  std::string corpus;
  std::string target = "gfx942";
  int repeat = 3;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--corpus") && i + 1 < argc) corpus = argv[++i];
    else if (!std::strcmp(argv[i], "--target") && i + 1 < argc) target = argv[++i];
    else if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
    else { std::fprintf(stderr, "usage: emu_throughput [--corpus DIR] [--target gfx942|gfx90a] [--repeat N] [--only KERNEL]\n"); return 2; }
  }
  if (corpus.empty()) {
    auto d = asmevo::test::corpus_dir();
    if (!d) { std::fprintf(stderr, "corpus not found: pass --corpus DIR or set ASMEVO_CORPUS_DIR\n"); return 2; }
    corpus = d->string();
  }
  const std::string nulls = R"({"null": true}, {"null": true})";
  const std::vector<Case> cases = {
      {"softmax_f32",
       R"({"grid": [512,1,1], "args": [{"buffer": {"dtype": "f32", "count": 524288}},
           {"buffer": {"dtype": "f32", "count": 524288, "init": {"random": {"seed": 1, "min": -4, "max": 4}}}},
           {"scalar": {"type": "i32", "value": 1024}}, {"scalar": {"type": "i32", "value": 1024}},
           {"scalar": {"type": "i32", "value": 1024}}, )" + nulls + "]}"},
      {"rms_norm_f16",
       R"({"grid": [256,1,1], "args": [{"buffer": {"dtype": "f16", "count": 1048576, "init": {"random": {"seed": 2, "min": -2, "max": 2}}}},
           {"buffer": {"dtype": "f16", "count": 4096, "init": {"random": {"seed": 3, "min": -1, "max": 1}}}},
           {"buffer": {"dtype": "f16", "count": 1048576}},
           {"scalar": {"type": "i32", "value": 4096}}, {"scalar": {"type": "i32", "value": 4096}},
           {"scalar": {"type": "f32", "value": 1e-5}}, )" + nulls + "]}"},
  };
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  std::printf("emulator throughput, %s, best of %d; peer: published ~5 us/instruction = %.2f M/s\n\n", target.c_str(), repeat,
              published_rate / 1e6);
  std::printf("%-14s %-12s %7s %7s %12s %10s %12s %10s\n", "kernel", "completion", "hazards", "threads", "wave-instr", "seconds",
              "M instr/s", "x peer");
  int rc = 0;
  for (const auto& c : cases) {
    if (!only.empty() && only != c.stem) continue;
    const std::string file = corpus + "/triton/" + c.stem + "." + target + ".hsaco";
    auto elf = codeobject::ElfFile::read(file);
    if (!elf) { std::fprintf(stderr, "%s\n", elf.error().str().c_str()); return 2; }
    auto enc = codeobject::encoder_for(*elf);
    if (!enc) { std::fprintf(stderr, "%s\n", enc.error().str().c_str()); return 2; }
    auto mod = codeobject::recover(*elf, **enc);
    if (!mod) { std::fprintf(stderr, "%s\n", mod.error().str().c_str()); return 2; }
    auto spec = verify::parse_launch_spec(c.spec, "<bench>", ".");
    if (!spec) { std::fprintf(stderr, "%s\n", spec.error().str().c_str()); return 2; }
    for (const auto completion : {emu::Completion::adversarial, emu::Completion::eager})
    for (const bool hazards : {true, false}) {
      for (const unsigned threads : {1u, cores}) {
        if (threads == cores && cores == 1 && completion == emu::Completion::eager) continue;
        double best = 1e30;
        std::uint64_t instr = 0;
        for (int r = 0; r < repeat; ++r) {
          emu::EmulateOptions o;
          o.run.completion = completion;
          o.run.threads = threads;
          o.hazards = hazards;
          auto res = emu::emulate(*mod, *elf, *spec, o);
          if (!res) { std::fprintf(stderr, "%s\n", res.error().str().c_str()); return 2; }
          if (!res->ok()) {
            std::fprintf(stderr, "%s stopped: %s\n", c.stem, res->stop.message.c_str());
            rc = 1;
            break;
          }
          best = std::min(best, res->seconds);
          instr = res->wave_instructions;
        }
        if (best >= 1e30) continue;
        const double rate = static_cast<double>(instr) / best;
        std::printf("%-14s %-12s %7s %7u %12llu %10.4f %12.2f %10.1f\n", c.stem,
                    completion == emu::Completion::eager ? "eager" : "adversarial", hazards ? "on" : "off", threads,
                    static_cast<unsigned long long>(instr), best, rate / 1e6, rate / published_rate);
      }
    }
  }
  return rc;
}
