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

namespace {

using namespace asmevo;
namespace fs = std::filesystem;

std::string target_of_name(const std::string& s) {
  for (const char* t : {"gfx90a", "gfx942", "gfx950"})
    if (s.find(t) != std::string::npos) return t;
  return {};
}

/// Triton's .s: the whole file, parsed and re-printed by asmevo, must assemble (LLVM) to exactly the
/// instruction bytes of the original file.
TEST(CorpusRoundTrip, TritonAssembly) {
  ASMEVO_REQUIRE_CORPUS(corpus);
  std::size_t files = 0, insts = 0;
  std::map<std::string, std::unique_ptr<mc::Context>> ctxs;
  for (const auto& path : test::files_with_ext(corpus / "triton", ".s")) {
    const std::string tname = target_of_name(path.filename().string());
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

/// Bytes of an llvm-objdump comment `// 000000001700: C0060080 00000000`: little-endian dwords.
std::vector<std::uint8_t> objdump_bytes(std::string_view comment) {
  std::vector<std::uint8_t> out;
  auto colon = comment.find(':');
  if (colon == std::string_view::npos) return out;
  std::string_view rest = comment.substr(colon + 1);
  std::size_t i = 0;
  while (i < rest.size()) {
    while (i < rest.size() && rest[i] == ' ') ++i;
    std::size_t b = i;
    while (i < rest.size() && std::isxdigit(static_cast<unsigned char>(rest[i]))) ++i;
    if (i - b != 8) break;
    const auto w = static_cast<std::uint32_t>(std::stoul(std::string(rest.substr(b, 8)), nullptr, 16));
    for (int k = 0; k < 4; ++k) out.push_back(static_cast<std::uint8_t>(w >> (8 * k)));
  }
  return out;
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
    const std::string tname = target_of_name(path.string());
    if (tname.empty()) continue;  // gfx908 blit kernels: not an asmevo target
    auto& ctx = ctxs[tname];
    if (!ctx) ctx = std::move(*mc::Context::create(tname));
    const Target t = *parse_target(tname);
    // -t first: the symbol table names every branch target objdump may print by name.
    const std::string cmd = std::string(ASMEVO_LLVM_OBJDUMP) + " -t -d --mcpu=" + tname + " '" + path.string() + "' 2>&1";
    std::FILE* pipe = popen(cmd.c_str(), "r");
    ASSERT_NE(pipe, nullptr) << cmd;
    std::string out;
    char buf[65536];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
    ASSERT_EQ(pclose(pipe), 0) << cmd << "\n" << out.substr(0, 500);
    ++objects;
    const auto lines = test::split_lines(out);
    std::map<std::string, std::uint64_t> symbols;  // `000000000000901c l       .text	0000000000000000 code_exit`
    for (const auto& line : lines) {
      if (line.size() < 17 || !std::isxdigit(static_cast<unsigned char>(line[0])) || line.find(".text") == std::string::npos) continue;
      const auto name = line.substr(line.find_last_of(" \t") + 1);
      symbols[name] = std::stoull(line.substr(0, 16), nullptr, 16);
    }
    for (const auto& line : lines) {
      if (line.empty() || line[0] != '\t') continue;
      const auto c = line.find("//");
      if (c == std::string::npos) continue;
      std::string ins(detail::trim(std::string_view(line).substr(0, c)));
      if (ins.empty() || ins[0] == '.' || ins[0] == '<') continue;
      const auto file_bytes = objdump_bytes(std::string_view(line).substr(c + 2));
      const std::uint64_t addr = std::stoull(line.substr(c + 2, line.find(':', c) - c - 2), nullptr, 16);
      if (const auto sp = ins.find(' '); sp != std::string::npos && ins.rfind("s_", 0) == 0) {
        std::string last = ins.substr(ins.rfind(' ') + 1);
        if (auto it = symbols.find(last); it != symbols.end()) {
          const auto off = (static_cast<std::int64_t>(it->second) - static_cast<std::int64_t>(addr) - 4) / 4;
          ins = ins.substr(0, ins.rfind(' ') + 1) + std::to_string(off);
        }
      }
      ++insts;
      auto want_r = ctx->encode_line(ins);
      ASSERT_TRUE(want_r) << path << ": LLVM cannot assemble objdump's own line: " << ins << ": " << want_r.error().message;
      const auto& want = *want_r;
      if (want != file_bytes) ++lossy;
      auto in = parse_inst(ins, t);
      if (!in) {
        failures.push_back(path.filename().string() + ": " + ins + " -> " + in.error().message);
        continue;
      }
      auto got = ctx->encode_line(print_inst(*in));
      if (!got || *got != want)
        failures.push_back(path.filename().string() + ": " + ins + " -> printed '" + print_inst(*in) + "' " +
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
