// The asmevo CLI's verbs, one function each, and the loading helpers they share.
#pragma once

#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "asmevo/ir/parser.hpp"
#include "asmevo/ir/preprocess.hpp"
#include "asmevo/support/file.hpp"
#include "cli.hpp"

namespace asmevo::cli {

/// True if the text needs the assembler preprocessor (macros, includes, loops, conditionals).
inline bool needs_preprocessor(const std::string& text) {
  for (const char* d : {".include", ".macro", ".rept", ".irp", ".if"})
    for (std::size_t at = text.find(d); at != std::string::npos; at = text.find(d, at + 1)) {
      const std::size_t b = text.rfind('\n', at);
      const std::string_view head = std::string_view(text).substr(b == std::string::npos ? 0 : b + 1, at - (b == std::string::npos ? 0 : b + 1));
      if (head.find_first_not_of(" \t") == std::string_view::npos) return true;  // directive at line start
    }
  return false;
}

/// Reads and parses an assembly file, printing every problem found (not just the first).
inline std::optional<Program> load_program(const std::string& path, Target t, const std::vector<std::string>& includes, int& rc) {
  auto text = read_file(path);
  if (!text) { rc = report(text.error()); return {}; }
  std::vector<PreprocessedLine> origins;  // empty unless the text was expanded
  if (needs_preprocessor(*text)) {
    PreprocessOptions o;
    o.file = path;
    o.include_dirs.push_back(std::filesystem::path(path).parent_path().string());
    for (const auto& d : includes) o.include_dirs.push_back(d);
    o.keep_definitions = true;
    auto pp = preprocess_all(*text, o);
    if (!pp.diags.empty()) {
      for (const auto& d : pp.diags) std::cerr << d.str() << "\n";
      rc = exit_bad_input;
      return {};
    }
    *text = pp.out.text();
    origins = std::move(pp.out.lines);
  }
  auto res = parse_program_all(*text, t, path);
  // After expansion, point every problem at the line the user wrote (file:line, the macro/include chain as a hint).
  for (auto& d : res.diags) {
    if (d.loc.line == 0 || d.loc.line > origins.size()) continue;
    const auto& o = origins[d.loc.line - 1].origin;
    if (!o.chain.empty()) d.hint = (d.hint.empty() ? "" : d.hint + "; ") + "expanded at " + o.str();
    d.loc.file = o.file;
    d.loc.line = o.line;
    d.loc.col = 0;  // columns refer to the expanded text
  }
  if (!res.diags.empty()) {
    for (const auto& d : res.diags) std::cerr << d.str() << "\n";
    std::cerr << "asmevo: " << res.diags.size() << " error(s) in " << path << "\n";
    rc = exit_bad_input;
    return {};
  }
  return std::move(res.program);
}


// Code objects (codeobject_verbs.cpp).
int cmd_inspect(int argc, char** argv);
int cmd_disasm(int argc, char** argv);
int cmd_assemble(int argc, char** argv);
int cmd_roundtrip(int argc, char** argv);

// The CPU emulator (emulate_verbs.cpp).
int cmd_emulate(int argc, char** argv);

// Differential verification (verify_verbs.cpp) and static checks (check_verbs.cpp).
int cmd_verify(int argc, char** argv);
int cmd_check(int argc, char** argv);

// Passes and edit scripts (apply_verbs.cpp).
int cmd_passes(int argc, char** argv);
int cmd_apply(int argc, char** argv);
int cmd_optimize(int argc, char** argv);

// Many kernels of a Triton capture folder, one `optimize` child each (optimize_dir_verbs.cpp).
int cmd_optimize_dir(int argc, char** argv);

// Triton's cache and dump folders (triton_verbs.cpp).
int cmd_triton(int argc, char** argv);

}  // namespace asmevo::cli
