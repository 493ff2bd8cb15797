// Real third-party assembly through asmevo: every instruction of the Triton .s files and of llvm-objdump-22's
// disassembly of every corpus code object parses, prints, and re-encodes (through LLVM MC) to the bytes
// LLVM encodes for the original.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>

#include "asmevo/ir/parser.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/mc/llvm_mc.hpp"
#include "support/corpus.hpp"
#include "support/objdump.hpp"

namespace {

using namespace asmevo;
namespace fs = std::filesystem;

/// Triton's .s: the whole file, parsed and re-printed by asmevo, must assemble (LLVM) to exactly the
/// instruction bytes of the original file.
TEST(CorpusRoundTrip, TritonAssembly) {
  ASMEVO_REQUIRE_CORPUS(corpus);
  std::size_t files = 0, insts = 0;
  std::map<std::string, std::unique_ptr<mc::Context>> ctxs;
  for (const auto& path : test::files_with_ext(corpus / "triton", ".s")) {
    const std::string tname = test::target_of_name(path.filename().string());
    ASSERT_FALSE(tname.empty()) << path;
    auto& ctx = ctxs[tname];
    if (!ctx) {
      auto c = mc::Context::create(tname);
      ASSERT_TRUE(c) << c.error().str();
      ctx = std::move(*c);
    }
    const Target t = *parse_target(tname);
    const std::string text = test::slurp(path);
    auto r = parse_program_all(text, t, path.string());
    ASSERT_TRUE(r.diags.empty()) << r.diags.front().str();
    const std::string printed = print_program(r.program);
    auto a = ctx->assemble_all(text, path.string());
    auto b = ctx->assemble_all(printed, "printed");
    ASSERT_TRUE(a.ok()) << a.errors.front().str();
    ASSERT_TRUE(b.ok()) << b.errors.front().str();
    ASSERT_EQ(a.instructions.size(), r.program.instruction_count()) << path;
    ASSERT_EQ(a.instructions.size(), b.instructions.size()) << path;
    for (std::size_t i = 0; i < a.instructions.size(); ++i)
      ASSERT_EQ(a.instructions[i].bytes, b.instructions[i].bytes)
          << path << ": instruction " << i << " (source line " << a.instructions[i].line << ")";
    ++files;
    insts += a.instructions.size();
  }
  std::printf("[ triton ] %zu files, %zu instructions parsed, printed and re-encoded identically\n", files, insts);
  EXPECT_EQ(files, 33u);
}

/// Every code object of the corpus for our targets, disassembled by llvm-objdump-22: each instruction line
/// parses, prints and encodes (LLVM MC) to the bytes LLVM encodes for the original line. Branch targets that
/// objdump shows as symbols (`s_branch label_0153`) are first replaced, in the line itself, by the dword offset
/// the symbol's address gives, since a single line has no labels. Separately counted: lines whose LLVM
/// encoding differs from the bytes in the file (LLVM's own disassembly is lossy there, e.g. unused bits).
TEST(CorpusRoundTrip, ObjdumpOfEveryCodeObject) {
  ASMEVO_REQUIRE_CORPUS(corpus);
  std::size_t objects = 0, insts = 0, lossy = 0;
  std::vector<std::string> failures;
  std::map<std::string, std::unique_ptr<mc::Context>> ctxs;
  std::vector<fs::path> paths = test::files_with_ext(corpus, ".co");
  for (auto& p : test::files_with_ext(corpus, ".hsaco")) paths.push_back(p);
  for (const auto& path : paths) {
    const std::string tname = test::target_of_name(path.string());
    if (tname.empty()) continue;  // gfx908 blit kernels: not an asmevo target
    auto& ctx = ctxs[tname];
    if (!ctx) ctx = std::move(*mc::Context::create(tname));
    const Target t = *parse_target(tname);
    std::vector<test::ObjdumpLine> lines;
    std::string err;
    ASSERT_TRUE(test::objdump_lines(ASMEVO_LLVM_OBJDUMP, tname, path.string(), lines, err)) << path << ": " << err;
    ++objects;
    for (const auto& l : lines) {
      ++insts;
      auto want = ctx->encode_line(l.text);
      ASSERT_TRUE(want) << path << ": LLVM cannot assemble objdump's own line: " << l.text << ": " << want.error().message;
      if (*want != l.bytes) ++lossy;
      auto in = parse_inst(l.text, t);
      if (!in) {
        failures.push_back(path.filename().string() + ": " + l.text + " -> " + in.error().message);
        continue;
      }
      auto got = ctx->encode_line(print_inst(*in));
      if (!got || *got != *want)
        failures.push_back(path.filename().string() + ": " + l.text + " -> printed '" + print_inst(*in) + "' " +
                           (got ? "encodes differently" : got.error().message));
    }
  }
  std::printf("[ objdump ] %zu code objects, %zu instructions, %zu failures (LLVM's own text re-encodes differently "
              "from the file for %zu of them)\n", objects, insts, failures.size(), lossy);
  for (std::size_t i = 0; i < failures.size() && i < 30; ++i) std::printf("  %s\n", failures[i].c_str());
  EXPECT_GT(objects, 60u);
  EXPECT_TRUE(failures.empty());
}

}  // namespace
