// LLVM's own disassembler tests (shared corpus llvm-mc-tests/Disassembler) through asmevo's decoder: every byte
// line LLVM decodes for gfx90a/gfx942/gfx950 becomes a typed Inst whose printed form re-encodes to the same bytes.
#include <gtest/gtest.h>

#include <cstdio>
#include <algorithm>
#include <regex>
#include <set>

#include "asmevo/mc/encode.hpp"
#include "support/corpus.hpp"

namespace {

using namespace asmevo;

void run_target(Target t) {
  ASMEVO_REQUIRE_CORPUS(corpus);
  const std::string tname(to_string(t));
  auto enc = mc::Encoder::create(t);
  ASSERT_TRUE(enc) << enc.error().str();
  std::size_t files = 0, lines = 0, decoded = 0, exact = 0, llvm_rejects = 0;
  std::vector<std::string> failures, lossy;
  static const std::regex mcpu(R"(-mcpu=([A-Za-z0-9_-]+))");
  for (const auto& path : test::files_with_ext(corpus / "llvm-mc-tests" / "Disassembler", ".txt")) {
    const auto text = test::split_lines(test::slurp(path));
    std::set<std::string> cpus;
    for (const auto& l : text)
      if (l.find("RUN:") != std::string::npos)
        for (std::sregex_iterator it(l.begin(), l.end(), mcpu), end; it != end; ++it) cpus.insert((*it)[1]);
    if (!cpus.count(tname)) continue;
    ++files;
    for (std::size_t i = 0; i < text.size(); ++i) {
      std::string_view l = detail::trim(text[i]);
      if (l.rfind("0x", 0) != 0) continue;  // byte lines only; comments and CHECK lines start with '#'
      if (auto c = l.find('#'); c != std::string_view::npos) l = detail::trim(l.substr(0, c));
      auto bytes = mc::parse_hex_bytes(l);
      ASSERT_TRUE(bytes) << path << ":" << i + 1 << ": " << bytes.error().str();
      ++lines;
      // LLVM's own verdict first: lines meant to be invalid on this target are skipped (counted).
      auto llvm = (*enc)->context().disassemble(*bytes);
      if (!llvm) {
        ++llvm_rejects;
        continue;
      }
      auto d = (*enc)->decode(*bytes);
      const std::string where = path.filename().string() + ":" + std::to_string(i + 1) + ": " + std::string(l);
      if (!d) {
        failures.push_back(where + " -> " + d.error().message);
        continue;
      }
      for (std::size_t k = 0; k < d->size(); ++k) {
        const auto& di = (*d)[k];
        ++decoded;
        if (di.exact) {
          ++exact;
          continue;
        }
        // Not exact: acceptable only where LLVM's own text does not re-encode to the bytes either.
        const auto own = (*enc)->context().encode_line((*llvm)[k].text);
        const std::span<const std::uint8_t> want(bytes->data() + di.offset, di.size);
        if (own && own->size() == want.size() && std::equal(own->begin(), own->end(), want.begin()))
          failures.push_back(where + " -> '" + print_inst(di.inst) + "' is lossy but LLVM's '" + (*llvm)[k].text + "' is not");
        else
          lossy.push_back(where + " -> " + print_inst(di.inst) + " (" + di.note + ")");
      }
    }
  }
  std::printf("[ llvm-mc disassembler tests %s ] %zu files, %zu byte lines (%zu invalid for LLVM too), %zu instructions "
              "decoded, %zu re-encode exactly, %zu where LLVM's own text does not round-trip either, %zu failures\n",
              tname.c_str(), files, lines, llvm_rejects, decoded, exact, lossy.size(), failures.size());
  for (std::size_t i = 0; i < failures.size() && i < 20; ++i) std::printf("  failure: %s\n", failures[i].c_str());
  for (std::size_t i = 0; i < lossy.size() && i < 20; ++i) std::printf("  lossy: %s\n", lossy[i].c_str());
  EXPECT_GT(files, 0u);
  EXPECT_TRUE(failures.empty());
  // Every remaining loss is LLVM's own (its disassembly does not re-assemble to the bytes either); checked above.
}

TEST(DecodeCorpus, Gfx90a) { run_target(Target::gfx90a); }
TEST(DecodeCorpus, Gfx942) { run_target(Target::gfx942); }
TEST(DecodeCorpus, Gfx950) { run_target(Target::gfx950); }

}  // namespace
