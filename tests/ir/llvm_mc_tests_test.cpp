// LLVM's own AMDGPU MC tests (shared corpus) through asmevo's parser and printer, with LLVM MC as the oracle:
// every line llvm-mc-22 accepts for a target must parse, print and re-encode to the same bytes (>= 99.5%),
// and every line it rejects must be rejected too or be listed in tests/data/llvm-mc-known-gaps.tsv.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <regex>
#include <set>

#include "asmevo/ir/detail/line_parser.hpp"
#include "asmevo/ir/parser.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/mc/llvm_mc.hpp"
#include "support/corpus.hpp"

namespace {

using namespace asmevo;

/// -mcpu values named by a test file's RUN lines.
std::set<std::string> run_mcpus(const std::vector<std::string>& lines) {
  std::set<std::string> out;
  static const std::regex re(R"(-mcpu=([A-Za-z0-9_-]+))");
  for (const auto& l : lines) {
    if (l.find("RUN:") == std::string::npos) continue;
    for (std::sregex_iterator it(l.begin(), l.end(), re), end; it != end; ++it) out.insert((*it)[1]);
  }
  return out;
}

/// Lines that hold an instruction, by asmevo's own line reader's judgement of the syntax (labels, directives
/// and comments are not instructions). Lines the reader cannot split are kept: the parser must reject them.
bool is_instruction_line(const std::string& l) {
  std::string_view t = detail::trim(l);
  if (t.empty() || t.front() == '.' || t.front() == ';' || t.rfind("//", 0) == 0 || t.front() == '#') return false;
  if (auto c = detail::comment_start(t); c != std::string_view::npos) t = detail::trim(t.substr(0, c));
  if (t.empty() || t.back() == ':') return false;
  if (t.find('=') != std::string_view::npos && t.find('=') < t.find(' ')) return false;  // `sym = expr`
  return true;
}

std::string gaps_path() { return std::string(ASMEVO_SOURCE_DIR) + "/tests/data/llvm-mc-known-gaps.tsv"; }

/// Known gaps: target \t file \t line \t reason.
std::set<std::string> load_gaps() {
  std::set<std::string> keys;
  std::ifstream in(gaps_path());
  std::string l;
  while (std::getline(in, l)) {
    if (l.empty() || l[0] == '#') continue;
    auto a = l.find('\t'), b = l.find('\t', a + 1), c = l.find('\t', b + 1);
    if (c == std::string::npos) continue;
    keys.insert(l.substr(0, c));
  }
  return keys;
}

struct Stats {
  std::size_t llvm_ok = 0, same_bytes = 0, llvm_rejects = 0, both_reject = 0, gap_listed = 0;
  std::vector<std::string> misses, unlisted;
};

void run_target(Target t) {
  ASMEVO_REQUIRE_CORPUS(corpus);
  auto ctx = mc::Context::create(to_string(t));
  ASSERT_TRUE(ctx) << ctx.error().str();
  const auto gaps = load_gaps();
  Stats st;
  std::string new_gaps;
  const std::string tname(to_string(t));
  std::size_t files = 0;
  for (const auto& path : test::files_with_ext(corpus / "llvm-mc-tests" / "AMDGPU", ".s")) {
    const auto lines = test::split_lines(test::slurp(path));
    if (!run_mcpus(lines).count(tname)) continue;
    ++files;
    // One LLVM run over the file's instruction lines, one per line, for acceptance and bytes per line.
    std::string text;
    std::vector<std::size_t> src;
    for (std::size_t i = 0; i < lines.size(); ++i)
      if (is_instruction_line(lines[i])) {
        text += lines[i] + "\n";
        src.push_back(i);
      }
    auto rep = (*ctx)->assemble_all(text);
    std::map<std::uint32_t, std::vector<std::uint8_t>> bytes;
    for (auto& e : rep.instructions) bytes[e.line] = e.bytes;
    std::map<std::uint32_t, std::string> errs;
    for (auto& d : rep.errors)
      if (!errs.count(d.loc.line)) errs[d.loc.line] = d.message;
    const std::string rel = path.filename().string();
    for (std::size_t k = 0; k < src.size(); ++k) {
      const auto ln = static_cast<std::uint32_t>(k + 1);
      const std::string& line = lines[src[k]];
      const bool llvm_ok = bytes.count(ln) && !errs.count(ln);
      auto in = parse_inst(line, t);
      if (llvm_ok) {
        ++st.llvm_ok;
        if (!in) {
          st.misses.push_back(rel + ":" + std::to_string(src[k] + 1) + ": " + line + "\n    asmevo: " + in.error().message);
          continue;
        }
        const std::string printed = print_inst(*in);
        auto re = (*ctx)->encode_line(printed);
        if (re && *re == bytes[ln]) {
          ++st.same_bytes;
        } else {
          st.misses.push_back(rel + ":" + std::to_string(src[k] + 1) + ": " + line + "\n    printed: " + printed +
                              (re ? "  (different bytes)" : "\n    LLVM: " + re.error().message));
        }
      } else if (errs.count(ln)) {
        ++st.llvm_rejects;
        if (!in) {
          ++st.both_reject;
          continue;
        }
        std::string clean = std::string(detail::trim(line));
        const std::string key = tname + "\t" + rel + "\t" + clean;
        if (gaps.count(key)) {
          ++st.gap_listed;
        } else {
          st.unlisted.push_back(rel + ":" + std::to_string(src[k] + 1) + ": " + clean + "\n    LLVM: " + errs[ln]);
          new_gaps += key + "\taccepted by asmevo; LLVM rejects it: " + errs[ln] + "\n";
        }
      }
    }
  }
  ASSERT_GT(files, 0u) << "no LLVM MC test names " << tname;
  const double ratio = st.llvm_ok ? static_cast<double>(st.same_bytes) / static_cast<double>(st.llvm_ok) : 0;
  std::printf("[ llvm-mc-tests %s ] files %zu | LLVM accepts %zu lines, asmevo parses+re-encodes %zu identically (%.3f%%) | "
              "LLVM rejects %zu: asmevo rejects %zu, known gaps %zu, unlisted %zu\n",
              tname.c_str(), files, st.llvm_ok, st.same_bytes, 100.0 * ratio, st.llvm_rejects, st.both_reject, st.gap_listed,
              st.unlisted.size());
  for (std::size_t i = 0; i < st.misses.size() && i < 40; ++i) std::printf("  miss: %s\n", st.misses[i].c_str());
  for (std::size_t i = 0; i < st.unlisted.size() && i < 40; ++i) std::printf("  unlisted: %s\n", st.unlisted[i].c_str());
  if (const char* w = std::getenv("ASMEVO_WRITE_GAPS"); w && *w && !new_gaps.empty()) {
    std::FILE* f = std::fopen(w, "a");
    if (f) {
      std::fputs(new_gaps.c_str(), f);
      std::fclose(f);
    }
  }
  EXPECT_GE(ratio, 0.995) << st.misses.size() << " accepted lines did not round-trip";
  EXPECT_TRUE(st.unlisted.empty()) << st.unlisted.size() << " lines LLVM rejects are accepted and not in " << gaps_path();
}

TEST(LlvmMcTests, Gfx90a) { run_target(Target::gfx90a); }
TEST(LlvmMcTests, Gfx942) { run_target(Target::gfx942); }
TEST(LlvmMcTests, Gfx950) { run_target(Target::gfx950); }

}  // namespace
