// libFuzzer target for ir/preprocess.hpp and ir/parser.hpp together, as `asmevo` reads a .s file: any text must
// expand and parse, or get a Diag with a message for every problem, never a crash; and a program that parses must
// print and re-parse to the same instructions and the same text (print/parse identity).
// Built and run by scripts/fuzz.sh parser (not part of CI).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <string_view>

#include "asmevo/ir/parser.hpp"
#include "asmevo/ir/preprocess.hpp"
#include "asmevo/ir/printer.hpp"

using namespace asmevo;

namespace {

/// `.include`d files, read once: every regular file of $ASMEVO_FUZZ_INCLUDE_DIR by its name (the MIOpen
/// `*_utils.inc` helpers in scripts/fuzz.sh). The fuzzer itself never touches the file system.
std::map<std::string, std::string>& include_files() {
  static std::map<std::string, std::string> files;
  return files;
}

/// The target a text names in `.amdgcn_target` (or anywhere), gfx942 otherwise, as the corpus files are written.
Target target_of(std::string_view text) {
  if (text.find("gfx950") != std::string_view::npos) return Target::gfx950;
  if (text.find("gfx90a") != std::string_view::npos) return Target::gfx90a;
  return Target::gfx942;
}

bool all_said(const Diags& ds) {
  for (const auto& d : ds)
    if (d.message.empty()) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (const char* dir = std::getenv("ASMEVO_FUZZ_INCLUDE_DIR")) {
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
      if (!e.is_regular_file()) continue;
      std::ifstream in(e.path(), std::ios::binary);
      std::stringstream ss;
      ss << in.rdbuf();
      include_files()[e.path().filename().string()] = ss.str();
    }
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const Target t = target_of(input);

  PreprocessOptions o;
  o.file = "fuzz.s";
  o.include_dirs = {"inc"};
  // "fuzz.s" includes the input itself (an include cycle); the helpers are found by name or in "inc/".
  o.read_file = [&input](const std::string& path) -> Expected<std::string> {
    if (path == "fuzz.s") return input;
    const std::string name = std::filesystem::path(path).filename().string();
    if (auto it = include_files().find(name); it != include_files().end()) return it->second;
    return fail(DiagCode::io_error, "no such file", Loc{path});
  };
  // The default bound (10 million lines) is minutes under ASan, and even 50,000 made `.rept` inputs a fuzzer finds
  // at once take most of the time; this one keeps every input to milliseconds while the limit check still runs.
  o.max_lines = 5'000;
  o.max_bytes = 1 << 20;  // and a macro whose argument doubles per level (found by this target: minutes per input)
  auto pp = preprocess_all(input, o);
  if (!pp.diags.empty()) {
    if (!all_said(pp.diags)) __builtin_trap();
    return 0;
  }
  const std::string text = pp.out.text();
  // Every output line has an origin in a file that was read.
  for (const auto& l : pp.out.lines)
    if (l.origin.line == 0 || l.origin.file.empty()) __builtin_trap();

  auto r = parse_program_all(text, t, "fuzz.s");
  if (!r.diags.empty()) {
    if (!all_said(r.diags)) __builtin_trap();
    return 0;
  }
  // print/parse identity: the printed program parses without a problem, to the same instructions with the same ids,
  // and prints to the same text again.
  const std::string printed = print_program(r.program);
  auto again = parse_program_all(printed, t, "printed.s");
  if (!again.diags.empty()) __builtin_trap();
  const auto& a = r.program.items;
  const auto& b = again.program.items;
  std::size_t i = 0, j = 0;
  for (;; ++i, ++j) {
    while (i < a.size() && a[i].kind != Item::Kind::inst) ++i;
    while (j < b.size() && b[j].kind != Item::Kind::inst) ++j;
    if (i == a.size() || j == b.size()) break;
    if (!(a[i].inst == b[j].inst) || a[i].inst.id != b[j].inst.id) __builtin_trap();
  }
  if (i != a.size() || j != b.size()) __builtin_trap();
  if (print_program(again.program) != printed) __builtin_trap();
  return 0;
}
